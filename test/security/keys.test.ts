// API keys: never in logs (captured at trace level) nor in answers, looked up by hash only, and
// unauthenticated guessing is rate limited per address before any lookup.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildApp } from '../../src/app.js';
import { createApiKey, revokeApiKey } from '../../src/modules/api-keys/api-keys.commands.js';
import { Authenticator } from '../../src/modules/api-keys/api-keys.reads.js';
import { hashApiKey } from '../../src/modules/api-keys/api-keys.rules.js';
import { createCommunity } from '../../src/modules/communities/communities.commands.js';
import { describeEachEngine, type TestApp, testConfig } from '../support/harness.js';
import { seedWorld, type World } from './support/world.js';

/** A pino destination that keeps every line. */
class CapturedLog extends Writable {
  text = '';
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

const randomKey = () => `ca_${randomBytes(24).toString('base64url')}`;

// The same rules in both forms of the log: pretty lines are made from the scrubbed JSON ones.
for (const format of ['json', 'pretty'] as const)
  describeEachEngine(`API keys in logs and answers (LOG_FORMAT=${format})`, (ctx) => {
    let t: TestApp;
    let world: World;
    let app: FastifyInstance;
    const log = new CapturedLog();
    const secrets: string[] = [];
    const bodies: string[] = [];

    before(async () => {
      t = ctx();
      world = await seedWorld(t, 'a');
      const revoked = await createApiKey({ database: t.database, clock: t.clock, communityId: world.communityId }, { label: 'revoked' });
      await revokeApiKey({ database: t.database, clock: t.clock }, revoked.id);
      secrets.push(world.key, revoked.key, randomKey(), 'not-a-ca-key-but-secret-0123456789');
      // The production logger options, at trace level, into a stream this test reads.
      app = await buildApp({
        config: { ...t.config, logFormat: format },
        database: t.database,
        clock: t.clock,
        logger: { level: 'trace', stream: log },
      });
      await app.ready();
    });
    after(async () => app?.close());

    const send = async (options: InjectOptions) => {
      const res = await app.inject(options);
      bodies.push(res.body);
      return res;
    };

    it('sends each key every way a client might, right or wrong', async () => {
      const [valid, revoked, unknown, odd] = secrets as [string, string, string, string];
      const json = { 'content-type': 'application/json' };
      for (const secret of [valid, revoked, unknown, odd]) {
        await send({ method: 'GET', url: '/admin/v0/calendar_events', headers: { authorization: `Bearer ${secret}` } });
        await send({ method: 'GET', url: '/admin/v0/calendar_events', headers: { authorization: secret } });
        await send({
          method: 'GET',
          url: '/admin/v0/calendar_events',
          headers: { authorization: `Basic ${Buffer.from(`u:${secret}`).toString('base64')}` },
        });
        for (const name of ['api_key', 'access_token', 'key', 'token', 'apiKey']) {
          await send({ method: 'GET', url: `/admin/v0/calendar_events?${name}=${secret}`, headers: { authorization: `Bearer ${valid}` } });
          await send({ method: 'GET', url: `/admin/v0/calendar_events?${name}=${secret}` });
        }
        // A secret that is not shaped like a key of this service is only recognisable where credentials go.
        if (secret === odd) continue;
        await send({ method: 'GET', url: `/admin/v0/${secret}`, headers: { authorization: `Bearer ${valid}` } });
        await send({ method: 'DELETE', url: `/admin/v0/feeds/${secret}`, headers: { authorization: `Bearer ${valid}` } });
        await send({ method: 'GET', url: `/admin/v0/calendar_events/${secret}`, headers: { authorization: `Bearer ${valid}` } });
        await send({ method: 'GET', url: `/admin/v0/feeds/${secret}/posts`, headers: { authorization: `Bearer ${valid}` } });
        await send({
          method: 'POST',
          url: '/admin/v0/members/check',
          headers: { authorization: `Bearer ${valid}`, ...json },
          payload: JSON.stringify({ email: secret }),
        });
        await send({
          method: 'POST',
          url: `/admin/v0/groups/${world.groupIds[0]}/members`,
          headers: { authorization: `Bearer ${valid}`, ...json },
          payload: JSON.stringify({ user: { chat_user_id: secret } }),
        });
        await send({
          method: 'POST',
          url: '/admin/v0/members',
          headers: { authorization: `Bearer ${valid}`, ...json },
          payload: `{"email":"${secret}"`,
        });
      }
      for (const secret of [valid, revoked, unknown, odd]) {
        await send({ method: 'GET', url: '/admin/v0/calendar_events', headers: { 'x-api-key': secret, cookie: `key=${secret}` } });
      }
      await send({
        method: 'GET',
        url: '/admin/v0/calendar_events',
        headers: { authorization: `Bearer ${valid}`, 'x-request-id': unknown },
      });
      assert.ok(bodies.length >= 70, String(bodies.length));
    });

    it('no key appears in any log line, though requests, URLs and refusals are logged', () => {
      assert.match(log.text, /incoming request/);
      // The form asked for: JSON objects, one a line, or pino-pretty's `[time] LEVEL (...): message`.
      if (format === 'json') assert.match(log.text, /^\{"level":\d+,/);
      else assert.match(log.text, /^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}\] (TRACE|DEBUG|INFO)/);
      assert.match(log.text, /Unknown or revoked API key/);
      assert.match(log.text, /calendar_events\?api_key=/, 'URLs with a query are logged (redacted), the check below is not vacuous');
      for (const secret of secrets) assert.equal(log.text.includes(secret), false, `a key appears in the logs: ${secret.slice(0, 6)}…`);
    });

    it('no key appears in any answer (error messages name the field, never echo a secret)', () => {
      for (const body of bodies) {
        for (const secret of secrets) assert.equal(body.includes(secret), false, `a key appears in an answer: ${body.slice(0, 200)}`);
      }
    });
  });

describeEachEngine('API key lookup', (ctx) => {
  it('authentication sends the database the SHA-256 of the secret only, never the secret', async () => {
    const t = ctx();
    const community = await t.community();
    const statements: string[] = [];
    const spied = {
      ...t.database,
      db: t.database.db.withPlugin({
        transformQuery: (args) => {
          statements.push(JSON.stringify(args.node));
          return args.node;
        },
        transformResult: async (args) => args.result,
      }),
    };
    const authenticator = new Authenticator(spied, t.clock);
    const principal = await authenticator.authenticate(community.key);
    assert.equal(typeof principal === 'string' ? principal : principal.communityId, community.id);
    assert.equal(await authenticator.authenticate(randomKey()), 'unknown');
    const lookups = statements.filter((s) => s.includes('api_keys'));
    assert.ok(
      lookups.some((s) => s.includes(hashApiKey(community.key))),
      'the lookup is not by hash',
    );
    for (const statement of statements) assert.equal(statement.includes(community.key), false, 'the secret itself reached the database');
  });
});

describeEachEngine(
  'unauthenticated brute force',
  (ctx) => {
    it('guesses from one address are limited per window (429 + Retry-After), and refused guesses past the budget cost no lookup', async () => {
      const t = ctx();
      // Counts the key lookups that reach the database (the authenticator caches for a second).
      let lookups = 0;
      const counted = {
        ...t.database,
        db: t.database.db.withPlugin({
          transformQuery: (args) => {
            if (JSON.stringify(args.node).includes('key_hash')) lookups++;
            return args.node;
          },
          transformResult: async (args) => args.result,
        }),
      };
      const authenticator = new Authenticator(counted, t.clock);
      const app = await buildApp({
        config: testConfig({ RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '5' }),
        database: t.database,
        clock: t.clock,
        logger: false,
        services: { authenticator },
      });
      try {
        const statuses: number[] = [];
        for (let i = 0; i < 30; i++) {
          const res = await app.inject({
            method: 'GET',
            url: '/admin/v0/calendar_events',
            headers: { authorization: `Bearer ${randomKey()}` },
          });
          statuses.push(res.statusCode);
          if (res.statusCode === 429) {
            assert.ok(Number(res.headers['retry-after']) >= 1);
            assert.equal(JSON.parse(res.body).error.code, 'rate_limited');
          }
        }
        assert.deepEqual(statuses.slice(0, 5), [401, 401, 401, 401, 401]);
        assert.ok(
          statuses.slice(5).every((s) => s === 429),
          statuses.join(','),
        );
        assert.ok(lookups <= 5, `${lookups} lookups for 5 allowed guesses`);
        // Malformed and missing keys count against the same budget.
        const missing = await app.inject({ method: 'GET', url: '/admin/v0/calendar_events' });
        assert.equal(missing.statusCode, 429);
        // The next window lets the address try again.
        t.clock.advance(1000);
        const community = await createCommunity({ database: t.database, clock: t.clock }, { name: 'Brute', plan: 'free' });
        const key = await createApiKey({ database: t.database, clock: t.clock, communityId: community.id }, {});
        const ok = await app.inject({ method: 'GET', url: '/admin/v0/calendar_events', headers: { authorization: `Bearer ${key.key}` } });
        assert.equal(ok.statusCode, 200);
      } finally {
        await app.close();
      }
    });
  },
  {},
);

const secretName = /(secret|token|password|passwd|api_?key|key_?hash|signature|hmac)/i;
const literal = /^(['"`].*['"`]|\d+|null|undefined|true|false)$/;
const comparison = /([\w$.[\]'"`]+)\s*(?:===|!==|==|!=)\s*([\w$.[\]'"`]+)/g;

/** Comparisons on the line between a secret-named value and anything but a literal (an emptiness check is fine). */
function secretComparisons(line: string): string[] {
  return [...line.matchAll(comparison)]
    .filter(([, left = '', right = '']) => {
      const sides = [left, right];
      return sides.some((side) => secretName.test(side) && !literal.test(side)) && !sides.some((side) => literal.test(side));
    })
    .map(([text]) => text);
}

describe('secret comparisons in the source', () => {
  it('the guard tells a secret comparison from an emptiness check', () => {
    assert.deepEqual(secretComparisons('if (row.key_hash === presented) return;'), ['row.key_hash === presented']);
    assert.deepEqual(secretComparisons('return token !== expectedToken;'), ['token !== expectedToken']);
    assert.deepEqual(secretComparisons("if (token === '' || typeof secret === 'string') x();"), []);
  });

  it('no secret is compared with ==/===/!=/!== (lookups go by hash, anything else through crypto.timingSafeEqual)', () => {
    const root = fileURLToPath(new URL('../../src/', import.meta.url));
    const violations: string[] = [];
    for (const file of readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'))) {
      readFileSync(join(root, file), 'utf8')
        .split('\n')
        .forEach((line, index) => {
          if (secretComparisons(line).length > 0) violations.push(`src/${file}:${index + 1}: ${line.trim()}`);
        });
    }
    assert.deepEqual(violations, []);
  });
});
