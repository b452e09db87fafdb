import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import { buildApp } from '../../../src/app.js';
import { describeEachEngine, testConfig } from '../../support/harness.js';

const firstKey = randomBytes(32).toString('base64');
const secondKey = randomBytes(32).toString('base64');

// A member's feed URL is answered again from its sealed token (SECRETS_KEY): once the key it was
// sealed with is gone, the answer says so (409, what to do), never a 500.
describeEachEngine(
  'calendar feeds: a member feed sealed with a key the server no longer holds',
  (ctx) => {
    it('answers 409 calendar_feed_unreadable with how to get a new URL; with the old key as previous, the same URL again', async () => {
      const t = ctx();
      const c = await t.community();
      const member = await t.request({
        method: 'POST',
        url: '/admin/v0/members',
        headers: c.auth,
        payload: { email: 'ada@example.com', full_name: 'Ada' },
      });
      assert.equal(member.statusCode, 201, member.body);
      const memberId = member.json<{ data: { member: { id: string } } }>().data.member.id;
      const url = `/admin/v0/members/${memberId}/calendar_feed`;
      const first = await t.request({ method: 'POST', url, headers: c.auth });
      assert.equal(first.statusCode, 201, first.body);

      const rotated = async (env: Record<string, string>) => {
        const app = await buildApp({ config: testConfig(env), database: t.database, clock: t.clock, logger: false });
        try {
          return await app.inject({ method: 'POST', url, headers: c.auth });
        } finally {
          await app.close();
        }
      };
      const refused = await rotated({ SECRETS_KEY: secondKey });
      assert.equal(refused.statusCode, 409, refused.body);
      const body = JSON.parse(refused.body) as { error: { code: string; hint: string } };
      assert.equal(body.error.code, 'calendar_feed_unreadable');
      assert.match(body.error.hint, /DELETE \/admin\/v0\/calendar_feeds/);

      const again = await rotated({ SECRETS_KEY: secondKey, SECRETS_KEY_PREVIOUS: firstKey });
      assert.equal(again.statusCode, 200, again.body);
      assert.deepEqual(JSON.parse(again.body).data, first.json<{ data: unknown }>().data);
    });
  },
  { env: { SECRETS_KEY: firstKey } },
);
