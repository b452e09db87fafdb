import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createApiKey } from '../../src/modules/api-keys/api-keys.commands.js';
import { createCommunity } from '../../src/modules/communities/communities.commands.js';
import { systemClock } from '../../src/shared/clock.js';
import { runCli } from '../support/cli.js';
import { createTestDatabase, postgresUrl, redisUrl, type TestDatabase, uniqueRedisPrefix } from '../support/harness.js';
import { ensureBuilt, type ServerProcess, startServerProcess } from './server-processes.js';

const skip =
  !postgresUrl || !redisUrl
    ? 'multi-instance suite skipped: it needs TEST_DATABASE_URL and TEST_REDIS_URL (run e.g. TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test TEST_REDIS_URL=redis://127.0.0.1:6379 npm test)'
    : false;

interface Answer {
  status: number;
  replayed: boolean;
  body: string;
}

describe('two server processes on one PostgreSQL and one Redis', { skip }, () => {
  let testDb: TestDatabase;
  let servers: ServerProcess[] = [];
  let communityId = '';
  const keys: { id: string; key: string }[] = [];

  before(async () => {
    ensureBuilt();
    testDb = await createTestDatabase('postgres');
    communityId = (await createCommunity({ database: testDb.database, clock: systemClock }, { name: 'Multi-instance', plan: 'enterprise' }))
      .id;
    for (let i = 0; i < 5; i++)
      keys.push(await createApiKey({ database: testDb.database, clock: systemClock, communityId }, { label: `key ${i}` }));
    const env = { ...testDb.env, REDIS_URL: redisUrl, REDIS_KEY_PREFIX: uniqueRedisPrefix('multi'), RATE_LIMIT_PER_SECOND: '50' };
    servers = await Promise.all([startServerProcess(env), startServerProcess(env)]);
  });

  after(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await testDb?.drop();
  });

  const call = async (
    server: ServerProcess,
    key: string,
    init: { method?: string; path?: string; body?: unknown; idempotencyKey?: string } = {},
  ): Promise<Answer> => {
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    if (init.idempotencyKey) headers['idempotency-key'] = init.idempotencyKey;
    const res = await fetch(`${server.baseUrl}${init.path ?? '/admin/v0/calendar_events'}`, {
      method: init.method ?? 'GET',
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    }).catch((error: unknown) => {
      throw new Error(`${server.baseUrl} did not answer (exit ${server.child.exitCode}): ${String(error)}\n${server.output()}`);
    });
    return { status: res.status, replayed: res.headers.get('x-idempotent-replayed') === 'true', body: await res.text() };
  };
  const [a, b] = [() => servers[0] as ServerProcess, () => servers[1] as ServerProcess];

  it('shares one budget per key: 100 requests at both within one window get at most ~50 answers', async () => {
    const key = (keys[0] as { key: string }).key;
    // A request refused by validation (400) has passed the limiter and costs no database query, so
    // the burst is short enough to fall in one window.
    const path = '/admin/v0/calendar_events?per_page=0';
    for (let attempt = 0; attempt < 3; attempt++) {
      // Start just after a second boundary (windows are aligned to the epoch second).
      await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 20));
      const started = Date.now();
      // Ten to A, then ten to B, each batch awaited: both instances serve within the window whatever
      // order the load gives the concurrent rest (under load one instance's requests can all arrive
      // first and spend the whole budget).
      const burst = (server: () => ServerProcess, n: number) => Promise.all(Array.from({ length: n }, () => call(server(), key, { path })));
      const first = await burst(a, 10);
      const second = await burst(b, 10);
      const rest = await Promise.all(Array.from({ length: 80 }, (_, i) => call(i % 2 === 0 ? a() : b(), key, { path })));
      const ended = Date.now();
      const statuses = [...first, ...second, ...rest].map((answer) => answer.status);
      const served = statuses.filter((status) => status === 400).length;
      const detail = `served ${served} of 100 in ${ended - started} ms: ${statuses.join(',')}\nA: ${a().output()}\nB: ${b().output()}`;
      assert.equal(statuses.filter((status) => status === 400 || status === 429).length, 100, detail);
      if (Math.floor(started / 1000) !== Math.floor(ended / 1000)) continue; // spanned two windows: try again
      assert.deepEqual(statuses.slice(0, 20), Array(20).fill(400), `both instances serve their first ten: ${detail}`);
      // Each instance alone would serve 50 of its own; together they spend one budget of 50.
      assert.ok(served >= 48 && served <= 52, detail);
      return;
    }
    assert.fail('no burst of 100 requests fitted in one second');
  });

  it('replays on one instance a response completed on the other, and runs concurrent claims exactly once', async () => {
    const key = (keys[1] as { key: string }).key;
    const idempotencyKey = randomUUID();
    const body = { email: `multi-${randomUUID()}@example.org`, full_name: 'Multi Instance' };
    const first = await call(a(), key, { method: 'POST', path: '/admin/v0/members', body, idempotencyKey });
    assert.equal(first.status, 201, first.body);
    assert.equal(first.replayed, false);
    const replay = await call(b(), key, { method: 'POST', path: '/admin/v0/members', body, idempotencyKey });
    assert.equal(replay.status, 201);
    assert.equal(replay.replayed, true);
    assert.equal(replay.body, first.body);

    const raceKey = randomUUID();
    const raceBody = { email: `race-${randomUUID()}@example.org`, full_name: 'Race Condition' };
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(i % 2 === 0 ? a() : b(), key, { method: 'POST', path: '/admin/v0/members', body: raceBody, idempotencyKey: raceKey }),
      ),
    );
    const ran = answers.filter((answer) => !answer.replayed && answer.status === 201);
    assert.equal(ran.length, 1, answers.map((x) => `${x.status}${x.replayed ? 'r' : ''}`).join(','));
    for (const answer of answers) {
      if (answer === ran[0]) continue;
      assert.ok(
        answer.status === 409 || (answer.status === 201 && answer.replayed && answer.body === ran[0]?.body),
        `${answer.status} ${answer.body}`,
      );
    }
  });

  it('refuses a key revoked through the CLI on both instances within a second', async () => {
    const { id, key } = keys[2] as { id: string; key: string };
    assert.equal((await call(a(), key)).status, 200);
    assert.equal((await call(b(), key)).status, 200);
    const revoked = await runCli(['key', 'revoke', id, '--json'], testDb.env);
    assert.equal(revoked.code, 0, revoked.stderr);
    const since = Date.now();
    const refusedAt = await Promise.all(
      [a(), b()].map(async (server) => {
        while (Date.now() - since < 3000) {
          if ((await call(server, key)).status === 401) return Date.now() - since;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        return Number.POSITIVE_INFINITY;
      }),
    );
    for (const ms of refusedAt) assert.ok(ms <= 1100, `refused after ${ms} ms`);
  });

  /** How long after `since` each instance first answers `status` to `key` (Infinity: not within 3 s). */
  const firstAnswerOf = (key: string, status: number, since: number) =>
    Promise.all(
      [a(), b()].map(async (server) => {
        while (Date.now() - since < 3000) {
          if ((await call(server, key)).status === status) return Date.now() - since;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        return Number.POSITIVE_INFINITY;
      }),
    );

  it('applies a permission change made through the CLI on both instances within a second', async () => {
    const { id, key } = keys[3] as { id: string; key: string };
    assert.equal((await call(a(), key)).status, 200);
    assert.equal((await call(b(), key)).status, 200);
    const changed = await runCli(['key', 'set-permissions', id, '--permissions', 'feeds:read', '--json'], testDb.env);
    assert.equal(changed.code, 0, changed.stderr);
    const since = Date.now();
    for (const ms of await firstAnswerOf(key, 403, since)) assert.ok(ms <= 1100, `refused after ${ms} ms`);
    const refused = await call(b(), key);
    assert.match(refused.body, /insufficient_scope/);
  });

  it('a rotation through the CLI: the new secret works on both instances at once, the old one until its grace ends', async () => {
    const { id, key } = keys[4] as { id: string; key: string };
    assert.equal((await call(a(), key)).status, 200);
    const rotated = await runCli(['key', 'rotate', id, '--grace', '5s', '--json'], testDb.env);
    assert.equal(rotated.code, 0, rotated.stderr);
    const fresh = JSON.parse(rotated.stdout) as { key: string; previous_valid_until: string };
    assert.equal((await call(a(), fresh.key)).status, 200);
    assert.equal((await call(b(), fresh.key)).status, 200);
    assert.equal((await call(b(), key)).status, 200);
    const graceEnd = Date.parse(fresh.previous_valid_until);
    // Expiry is judged against the clock on every request (not only when the lookup is refreshed).
    for (const ms of await firstAnswerOf(key, 401, graceEnd - 1000)) {
      assert.ok(ms >= 1000 && ms <= 1300, `old secret refused ${ms - 1000} ms after the grace ended`);
    }
    assert.match((await call(a(), key)).body, /api_key_expired/);
    assert.equal((await call(a(), fresh.key)).status, 200);
  });
});
