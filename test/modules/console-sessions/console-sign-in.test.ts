import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { ErrorBody } from '../../../src/errors.js';
import { revokeApiKey } from '../../../src/modules/api-keys/api-keys.commands.js';
import { listApiKeys } from '../../../src/modules/api-keys/api-keys.reads.js';
import { createConsoleLink } from '../../../src/modules/console-sessions/console-sessions.commands.js';
import { principalOf } from '../../../src/routing/request-context.js';
import { permissions } from '../../../src/shared/permissions.js';
import { durationMs } from '../../../src/shared/time.js';
import { describeEachEngine, redisSkipReason, redisUrl, startTestApp, type TestApp, uniqueRedisPrefix } from '../../support/harness.js';

interface Session {
  key: string;
  key_id: string;
  expires_at: string;
  community: { id: string; name: string; plan: string };
}

const fifteenMinutes = durationMs(15 * 60_000);
const hourMs = 3_600_000;

/** A test-only protected route that answers who the caller is, so the principal's `kind` is seen over HTTP. */
function whoAmIRoute(app: FastifyInstance): void {
  app.get('/admin/v0/test/principal', { schema: { hide: true } }, async (request) => {
    const { keyId, communityId, kind } = principalOf(request);
    return { keyId, communityId, kind };
  });
}

async function newLink(t: TestApp, communityId: string, lifetime = fifteenMinutes): Promise<string> {
  return (await createConsoleLink({ database: t.database, clock: t.clock, communityId: communityId }, lifetime)).token;
}

const signIn = (t: TestApp, token: unknown) =>
  t.request({ method: 'POST', url: '/admin/v0/console/sessions', payload: { token }, headers: { 'content-type': 'application/json' } });

/** What every refusal answers: one code, one message, one hint, whatever the reason. */
function assertRefused(res: Awaited<ReturnType<typeof signIn>>): ErrorBody['error'] {
  assert.equal(res.statusCode, 401, res.body);
  const { error } = res.json<ErrorBody>();
  assert.equal(error.code, 'console_link_refused');
  assert.match(error.message, /already used, has expired or is unknown/);
  assert.match(error.hint, /community-admin console link --community/);
  return error;
}

describeEachEngine(
  'console sign-in: POST /admin/v0/console/sessions',
  (ctx) => {
    it('exchanges a link for a session key of the community: 201, every permission, kind console, 12 hours, listed by key list', async () => {
      const t = ctx();
      const community = await t.community('free', 'Sign-in community');
      const res = await signIn(t, await newLink(t, community.id));
      assert.equal(res.statusCode, 201, res.body);
      const body = res.json<{ success: boolean; data: Session }>();
      assert.equal(body.success, true);
      assert.deepEqual(Object.keys(body.data).sort(), ['community', 'expires_at', 'key', 'key_id']);
      assert.deepEqual(body.data.community, { id: community.id, name: 'Sign-in community', plan: 'free' });
      assert.equal(body.data.expires_at, new Date(t.clock.now() + 12 * hourMs).toISOString());
      const auth = { authorization: `Bearer ${body.data.key}` };

      // The key works over HTTP, holds every permission of the catalogue, and is a console key.
      const me = await t.request({ method: 'GET', url: '/admin/v0/api_key/me', headers: auth });
      assert.equal(me.statusCode, 200, me.body);
      const described = me.json<{ data: { id: string; label: string; permissions: string[]; expires_at: string } }>().data;
      assert.equal(described.id, body.data.key_id);
      assert.equal(described.label, 'Console session');
      assert.deepEqual(described.permissions, [...permissions]);
      assert.equal(described.expires_at, body.data.expires_at);
      const who = await t.request({ method: 'GET', url: '/admin/v0/test/principal', headers: auth });
      assert.deepEqual(who.json(), { keyId: body.data.key_id, communityId: community.id, kind: 'console' });
      const plain = await t.request({ method: 'GET', url: '/admin/v0/test/principal', headers: community.auth });
      assert.equal(plain.json<{ kind: string }>().kind, 'key', 'a key made by key create is kind key');
      for (const url of ['/admin/v0/calendar_events', '/admin/v0/feeds']) {
        assert.equal((await t.request({ method: 'GET', url, headers: auth })).statusCode, 200, url);
      }

      const listed = await listApiKeys({ database: t.database }, community.id);
      const session = listed.find((key) => key.id === body.data.key_id);
      assert.ok(session, 'the session key is in the key list');
      assert.equal(session.kind, 'console');
      assert.equal(session.label, 'Console session');
      assert.equal(session.all_permissions, false, 'every permission listed by name, not `all`');
      assert.equal(listed.find((key) => key.id === community.keyId)?.kind, 'key');

      // The session ends when its key expires.
      t.clock.advance(12 * hourMs);
      const expired = await t.request({ method: 'GET', url: '/admin/v0/api_key/me', headers: auth });
      assert.equal(expired.statusCode, 401);
      assert.equal(expired.json<ErrorBody>().error.code, 'api_key_expired');
    });

    it('signs out by revoking the session key', async () => {
      const t = ctx();
      const community = await t.community();
      const session = (await signIn(t, await newLink(t, community.id))).json<{ data: Session }>().data;
      const auth = { authorization: `Bearer ${session.key}` };
      assert.equal((await t.request({ method: 'GET', url: '/admin/v0/api_key/me', headers: auth })).statusCode, 200);
      await revokeApiKey({ database: t.database, clock: t.clock }, session.key_id);
      t.clock.advance(1001); // past the authenticator's one-second trust of a looked-up key
      assert.equal((await t.request({ method: 'GET', url: '/admin/v0/api_key/me', headers: auth })).statusCode, 401);
    });

    it('refuses a second use, an expired link and an unknown token alike: 401 console_link_refused, the same body', async () => {
      const t = ctx();
      const community = await t.community();
      const token = await newLink(t, community.id);
      assert.equal((await signIn(t, token)).statusCode, 201);
      const used = assertRefused(await signIn(t, token));

      const late = await newLink(t, community.id);
      t.clock.advance(fifteenMinutes - 1);
      const almost = await newLink(t, community.id, durationMs(1));
      t.clock.advance(1);
      const expired = assertRefused(await signIn(t, late));
      assertRefused(await signIn(t, almost));

      const unknown = assertRefused(await signIn(t, randomBytes(32).toString('base64url')));
      assert.deepEqual(expired, used, 'nothing tells an expired link from a used one');
      assert.deepEqual(unknown, used, 'nor an unknown token from a used one');

      // A refused use makes no key.
      const keys = await listApiKeys({ database: t.database }, community.id);
      assert.equal(keys.filter((key) => key.kind === 'console').length, 1);
    });

    it('lets exactly one of concurrent uses of a link win', async () => {
      const t = ctx();
      const community = await t.community();
      for (let round = 0; round < 3; round++) {
        const token = await newLink(t, community.id);
        const answers = await Promise.all(Array.from({ length: 6 }, () => signIn(t, token)));
        const statuses = answers.map((res) => res.statusCode).sort();
        assert.deepEqual(statuses, [201, 401, 401, 401, 401, 401], `round ${round}: ${answers.map((res) => res.body).join('\n')}`);
        for (const res of answers.filter((answer) => answer.statusCode === 401)) assertRefused(res);
      }
      const keys = await listApiKeys({ database: t.database }, community.id);
      assert.equal(keys.filter((key) => key.kind === 'console').length, 3, 'one session per link');
    });

    it('needs no API key, and refuses a body without a token (400) and other content types (415)', async () => {
      const t = ctx();
      const missing = await t.request({ method: 'POST', url: '/admin/v0/console/sessions', payload: {} });
      assert.equal(missing.statusCode, 400);
      assert.equal(missing.json<ErrorBody>().error.code, 'validation_failed');
      assert.equal((await signIn(t, 42)).statusCode, 400);
      assert.equal((await signIn(t, '')).statusCode, 400);
      const form = await t.request({
        method: 'POST',
        url: '/admin/v0/console/sessions',
        payload: 'token=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.equal(form.statusCode, 415);
      // A bad key sent along does not matter: the route takes none.
      const withKey = await t.request({
        method: 'POST',
        url: '/admin/v0/console/sessions',
        payload: { token: 'not-a-token' },
        headers: { authorization: 'Bearer ca_not_a_key_at_all_123' },
      });
      assertRefused(withKey);
    });

    it('is documented as a public extension (tag extension, no security), with its 201 and 401', async () => {
      const doc = (await ctx().request({ method: 'GET', url: '/admin/v0/openapi.json' })).json<{
        paths: Record<string, Record<string, { tags: string[]; security: unknown[]; responses: Record<string, unknown> }>>;
      }>();
      const operation = doc.paths['/admin/v0/console/sessions']?.post;
      assert.ok(operation, 'documented');
      assert.ok(operation.tags.includes('extension'));
      assert.deepEqual(operation.security, []);
      assert.ok(operation.responses['201'] && operation.responses['401'] && operation.responses['429']);
    });
  },
  { beforeReady: whoAmIRoute },
);

describeEachEngine(
  'console sign-in: its own per-address budget, and CONSOLE_SESSION_HOURS',
  (ctx) => {
    it('counts sign-ins per address and per minute (429 past RATE_LIMIT_SIGN_IN_PER_MINUTE), apart from other addresses', async () => {
      const t = ctx();
      const community = await t.community();
      const from = (remoteAddress: string, token: string) =>
        t.request({ method: 'POST', url: '/admin/v0/console/sessions', payload: { token }, remoteAddress });
      const first = await from('203.0.113.7', await newLink(t, community.id));
      assert.equal(first.statusCode, 201);
      assert.equal(first.headers['ratelimit-policy'], '"sign_in";q=3;w=60');
      assert.equal((await from('203.0.113.7', 'guess-1')).statusCode, 401);
      assert.equal((await from('203.0.113.7', 'guess-2')).statusCode, 401);
      const limited = await from('203.0.113.7', await newLink(t, community.id));
      assert.equal(limited.statusCode, 429);
      assert.equal(limited.json<ErrorBody>().error.code, 'rate_limited');
      assert.ok(Number(limited.headers['retry-after']) >= 1);
      assert.equal((await from('198.51.100.4', await newLink(t, community.id))).statusCode, 201, 'another address has its own budget');
      t.clock.advance(60_000);
      assert.equal((await from('203.0.113.7', await newLink(t, community.id))).statusCode, 201, 'a new minute, a new budget');
    });

    it('makes sessions of CONSOLE_SESSION_HOURS', async () => {
      const t = ctx();
      const community = await t.community();
      const res = await t.request({
        method: 'POST',
        url: '/admin/v0/console/sessions',
        payload: { token: await newLink(t, community.id) },
        remoteAddress: '192.0.2.1',
      });
      assert.equal(res.json<{ data: Session }>().data.expires_at, new Date(t.clock.now() + 3 * hourMs).toISOString());
    });
  },
  { env: { RATE_LIMIT_SIGN_IN_PER_MINUTE: '3', CONSOLE_SESSION_HOURS: '3' } },
);

describeEachEngine(
  'console sign-in with CONSOLE=false',
  (ctx) => {
    it('has no sign-in route (404) and does not document it', async () => {
      const t = ctx();
      const community = await t.community();
      const res = await signIn(t, await newLink(t, community.id));
      assert.equal(res.statusCode, 404);
      assert.equal(res.json<ErrorBody>().error.code, 'route_not_found');
      const doc = (await t.request({ method: 'GET', url: '/admin/v0/openapi.json', headers: community.auth })).json<{
        paths: Record<string, unknown>;
      }>();
      assert.equal(doc.paths['/admin/v0/console/sessions'], undefined);
    });
  },
  { env: { CONSOLE: 'false' } },
);

describe('console sign-in: one budget for every instance through Redis', { skip: redisSkipReason }, () => {
  const apps: TestApp[] = [];
  before(async () => {
    const env = { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: uniqueRedisPrefix('sign-in'), RATE_LIMIT_SIGN_IN_PER_MINUTE: '2' };
    apps.push(await startTestApp('sqlite', { env }), await startTestApp('sqlite', { env }));
  });
  after(async () => {
    for (const t of apps) {
      await t.app.close();
      await t.testDb.drop();
    }
  });

  it('counts the sign-ins of an address on every instance together', async () => {
    const [a, b] = apps as [TestApp, TestApp];
    const from = (t: TestApp) =>
      t.request({ method: 'POST', url: '/admin/v0/console/sessions', payload: { token: 'a-guess' }, remoteAddress: '203.0.113.9' });
    assert.equal((await from(a)).statusCode, 401);
    assert.equal((await from(b)).statusCode, 401);
    const limited = await from(a);
    assert.equal(limited.statusCode, 429, limited.body);
    assert.equal((await from(b)).statusCode, 429);
  });
});
