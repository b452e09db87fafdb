import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { createApiKey } from '../../src/modules/api-keys/api-keys.commands.js';
import { createCommunity } from '../../src/modules/communities/communities.commands.js';
import { systemClock } from '../../src/shared/clock.js';
import { ensureBuilt, type ServerProcess, startServerProcess } from '../http/server-processes.js';
import { FaultProxy } from '../support/fault-proxy.js';
import { createTestDatabase, postgresUrl, redisSkipReason, redisUrl, type TestDatabase, uniqueRedisPrefix } from '../support/harness.js';
import { FaultLoad, summary, wrongAnswers } from './support/fault-load.js';

const skip = postgresUrl
  ? false
  : 'database faults skipped: they need PostgreSQL (TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm test)';

/** Short statement timeout so that silence is noticed fast; the connect timeout keeps its default (1.5 s). */
const statementTimeoutMs = 1000;
const deadlineMs = 5000;
/** What the issue promises: an outage answers within 2 s, a heal is served within 10 s. */
const outageAnswerMs = 2000;
const recoveryMs = 10_000;
/** Generous room for a loaded 2-core CI machine on top of those bounds. */
const slack = 1000;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The test's DATABASE_URL rewritten to go through the proxy, its connections named so that only they are terminated. */
function throughProxy(url: string, proxy: FaultProxy, applicationName: string): string {
  const proxied = new URL(url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(proxy.port);
  proxied.searchParams.set('application_name', applicationName);
  return proxied.toString();
}

const upstream = () => {
  const url = new URL(postgresUrl);
  return { host: url.hostname, port: Number(url.port || 5432) };
};

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await work();
  return { value, ms: Date.now() - started };
}

// A TCP proxy between a real server process and PostgreSQL: the way a failover, a network partition
// or a database restart looks to the server. One server lives through all of it, without a restart.
describe('PostgreSQL failing under a real server', { skip }, () => {
  let testDb: TestDatabase;
  let proxy: FaultProxy;
  let redisProxy: FaultProxy | undefined;
  let server: ServerProcess | undefined;
  let load: FaultLoad | undefined;
  let authorization = '';
  const applicationName = `ca-faults-${process.pid}-${Date.now()}`;
  let env: Record<string, string> = {};

  const acknowledgedCount = () => load?.acknowledged.length ?? 0;
  const assertAlive = () => assert.equal(server?.child.exitCode, null, `the server exited:\n${server?.output().slice(-3000)}`);

  before(async () => {
    ensureBuilt();
    testDb = await createTestDatabase('postgres');
    const community = await createCommunity({ database: testDb.database, clock: systemClock }, { name: 'Faults', plan: 'enterprise' });
    authorization = `Bearer ${(await createApiKey({ database: testDb.database, clock: systemClock, communityId: community.id }, { label: 'faults' })).key}`;
    proxy = await new FaultProxy(upstream()).start();
    env = {
      DATABASE_URL: throughProxy(testDb.url, proxy, applicationName),
      RESPONSE_CACHE_MB: '0',
      RATE_LIMIT_PER_SECOND: '100000',
      RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '100000',
      DATABASE_STATEMENT_TIMEOUT_MS: String(statementTimeoutMs),
      REQUEST_DEADLINE_MS: String(deadlineMs),
    };
    if (redisUrl) {
      const target = new URL(redisUrl);
      redisProxy = await new FaultProxy({ host: target.hostname, port: Number(target.port || 6379) }).start();
      target.hostname = '127.0.0.1';
      target.port = String(redisProxy.port);
      env.REDIS_URL = target.toString();
      env.REDIS_KEY_PREFIX = uniqueRedisPrefix('faults');
    }
    server = await startServerProcess(env);
    load = new FaultLoad(server.baseUrl, authorization, 10).start();
    await pause(500);
  });

  after(async () => {
    await load?.stop();
    await server?.stop();
    await proxy?.close();
    await redisProxy?.close();
    await testDb?.drop();
  });

  it('serves under steady load', async (t) => {
    const since = Date.now();
    assert.ok((await load?.firstSuccessAfter(since, recoveryMs)) !== null, 'no success at all');
    await pause(1000);
    const answers = load?.since(since) ?? [];
    assert.ok(answers.filter((answer) => answer.status === 200 || answer.status === 201).length > 5, summary(answers));
    t.diagnostic(`steady load: ${summary(answers)}`);
    assert.deepEqual(wrongAnswers(answers), [], summary(answers));
  });

  it('connections cut under load: no crash, served again at once', async (t) => {
    const cutAt = Date.now();
    proxy.cut();
    await pause(300);
    proxy.cut();
    const secondCutAt = Date.now();
    const recovered = await load?.firstSuccessAfter(secondCutAt, recoveryMs);
    assert.ok(recovered !== null && recovered !== undefined, `no success within ${recoveryMs} ms of the cut`);
    t.diagnostic(`first success ${recovered - secondCutAt} ms after the cut`);
    await pause(300);
    assertAlive();
    const answers = load?.since(cutAt) ?? [];
    assert.deepEqual(wrongAnswers(answers), [], summary(answers));
  });

  it('PostgreSQL down: every request answers 503 database_unavailable fast, /readyz 503 within 1 s, /healthz 200; back by itself', async (t) => {
    proxy.down();
    const downAt = Date.now();
    await pause(outageAnswerMs + 300);
    const readiness = await timed(() => fetch(`${server?.baseUrl}/readyz`));
    const liveness = await fetch(`${server?.baseUrl}/healthz`);
    await pause(1000);
    const during = (load?.since(downAt) ?? []).filter((answer) => answer.at - answer.ms >= downAt + 100);
    proxy.heal();
    const healedAt = Date.now();
    assert.equal(readiness.value.status, 503);
    assert.ok(readiness.ms < 1000 + slack / 2, `readyz took ${readiness.ms} ms`);
    assert.equal(liveness.status, 200, 'an outage is not a reason to restart the instance');
    assert.ok(during.length > 10, summary(during));
    assert.deepEqual(wrongAnswers(during), [], summary(during));
    assert.ok(
      during.every((answer) => answer.status === 503 && answer.code === 'database_unavailable'),
      `not all 503 database_unavailable: ${summary(during)}`,
    );
    const slowest = Math.max(...during.map((answer) => answer.ms));
    assert.ok(slowest <= outageAnswerMs + slack / 2, `an answer took ${slowest} ms during the outage: ${summary(during)}`);
    const recovered = await load?.firstSuccessAfter(healedAt, recoveryMs);
    assert.ok(recovered !== null && recovered !== undefined, `no success within ${recoveryMs} ms of the heal`);
    t.diagnostic(`outage: ${summary(during)}; readyz ${readiness.ms} ms; first success ${recovered - healedAt} ms after the heal`);
    assertAlive();
  });

  it('sessions terminated by PostgreSQL (pg_terminate_backend, as a restart or failover does): no crash, no 500', async (t) => {
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    const since = Date.now();
    try {
      for (let round = 0; round < 4; round++) {
        // Only this server's sessions: other test files use the same PostgreSQL at the same time.
        const { rows } = await admin.query(
          'select pg_terminate_backend(pid) as done from pg_stat_activity where application_name = $1 and pid <> pg_backend_pid()',
          [applicationName],
        );
        assert.ok(round > 0 || rows.length > 0, 'the server had no session to terminate');
        await pause(400);
      }
    } finally {
      await admin.end();
    }
    const lastAt = Date.now();
    const recovered = await load?.firstSuccessAfter(lastAt, recoveryMs);
    assert.ok(recovered !== null && recovered !== undefined, `no success within ${recoveryMs} ms`);
    await pause(300);
    assertAlive();
    const answers = load?.since(since) ?? [];
    assert.deepEqual(wrongAnswers(answers), [], summary(answers));
    t.diagnostic(`terminations: ${summary(answers)}`);
  });

  it('black hole then heal: answers within the deadline, /readyz within 1 s, served again within 10 s', async (t) => {
    proxy.blackHole();
    const silentAt = Date.now();
    await pause(500);
    const readiness = await timed(() => fetch(`${server?.baseUrl}/readyz`));
    await pause(2500);
    proxy.heal();
    const healedAt = Date.now();
    assert.equal(readiness.value.status, 503);
    assert.ok(readiness.ms < 1000 + slack / 2, `readyz took ${readiness.ms} ms`);
    const recovered = await load?.firstSuccessAfter(healedAt, recoveryMs);
    assert.ok(recovered !== null && recovered !== undefined, `no success within ${recoveryMs} ms of the heal`);
    await pause(deadlineMs);
    const answers = load?.since(silentAt) ?? [];
    assert.deepEqual(wrongAnswers(answers), [], summary(answers));
    const slowest = Math.max(...answers.map((answer) => answer.ms));
    assert.ok(slowest <= deadlineMs + slack, `an answer took ${slowest} ms: ${summary(answers)}`);
    t.diagnostic(`black hole: ${summary(answers)}; readyz ${readiness.ms} ms; first success ${recovered - healedAt} ms after the heal`);
    assertAlive();
  });

  it('black hole for good on the open connections: new connections serve within 10 s, /healthz stays 200', async (t) => {
    proxy.abandonOpenLinks();
    const abandonedAt = Date.now();
    await pause(200);
    const recovered = await load?.firstSuccessAfter(abandonedAt + 200, recoveryMs);
    assert.ok(recovered !== null && recovered !== undefined, `no success within ${recoveryMs} ms`);
    t.diagnostic(`first success ${recovered - abandonedAt} ms after the open connections went silent for good`);
    // Served steadily afterwards, not by luck: the silent connections were discarded.
    await pause(deadlineMs);
    // Reads all answer; an add may still meet its own earlier claim (409) until that claim's lease ends.
    const settled = (load?.since(Date.now() - 1000) ?? []).filter((answer) => answer.kind === 'read');
    assert.ok(settled.length > 0 && settled.every((answer) => answer.status === 200), summary(settled));
    assert.equal((await fetch(`${server?.baseUrl}/healthz`)).status, 200);
    const answers = load?.since(abandonedAt) ?? [];
    assert.deepEqual(wrongAnswers(answers), [], summary(answers));
    assertAlive();
  });

  it('Redis silent, then cut: requests are still served (limits per instance), fast', { skip: redisSkipReason }, async (t) => {
    const redis = redisProxy as FaultProxy;
    const since = Date.now();
    redis.blackHole();
    await pause(1500);
    redis.down();
    await pause(1000);
    redis.heal();
    await pause(500);
    const answers = load?.since(since) ?? [];
    assert.ok(answers.filter((answer) => answer.status === 200 || answer.status === 201).length > 10, summary(answers));
    assert.deepEqual(wrongAnswers(answers), [], summary(answers));
    assert.ok(
      answers.every((answer) => answer.status !== 503),
      `a Redis outage must not fail requests: ${summary(answers)}`,
    );
    const slowest = Math.max(...answers.map((answer) => answer.ms));
    assert.ok(slowest <= 1000 + slack, `an answer took ${slowest} ms: ${summary(answers)}`);
    t.diagnostic(`Redis silent then down: ${summary(answers)}`);
    assertAlive();
  });

  it('SIGTERM while PostgreSQL is down exits 0 within the shutdown grace; no acknowledged write was lost', async (t) => {
    const running = server as ServerProcess;
    proxy.down();
    await pause(500);
    const stoppedAt = Date.now();
    running.child.kill('SIGTERM');
    if (running.child.exitCode === null) await once(running.child, 'exit');
    const stopMs = Date.now() - stoppedAt;
    await load?.stop();
    proxy.heal();
    assert.equal(running.child.exitCode, 0, running.output().slice(-3000));
    assert.ok(stopMs < 9000, `the stop took ${stopMs} ms`);
    t.diagnostic(`stop during the outage: ${stopMs} ms; ${acknowledgedCount()} adds acknowledged in all`);
    assert.doesNotMatch(running.output(), /request failed/, 'a request failed with a 500');
    const acknowledged = load?.acknowledged ?? [];
    assert.ok(acknowledged.length > 20, `only ${acknowledged.length} adds acknowledged`);
    const found = await testDb.database.db.selectFrom('members').select('email').where('email', 'in', acknowledged).execute();
    assert.equal(found.length, acknowledged.length, 'an acknowledged member is missing');
  });

  it('a partition that lets new connections hang (accepted, never answered): reads answer 503 database_unavailable, not 500', async () => {
    // A new connection then ends by the client's connect timeout (1.5 s), whose error names no code.
    // With the operator defaults (statement timeout 5 s) it comes before the pool's own wait.
    const silentProxy = await new FaultProxy(upstream()).start();
    let silent: ServerProcess | undefined;
    try {
      const { DATABASE_STATEMENT_TIMEOUT_MS: _statement, REQUEST_DEADLINE_MS: _deadline, ...defaults } = env;
      silent = await startServerProcess({ ...defaults, DATABASE_URL: throughProxy(testDb.url, silentProxy, `${applicationName}-silent`) });
      const read = () => fetch(`${silent?.baseUrl}/admin/v0/calendar_events`, { headers: { authorization } });
      // Served once: the key is known for a second, so the next reads go straight to the database.
      assert.equal((await read()).status, 200);
      silentProxy.cut();
      silentProxy.blackHole();
      const answers = await Promise.all([read(), read()]);
      for (const answer of answers) {
        const body = await answer.text();
        assert.equal(answer.status, 503, `${body}\n${silent.output().slice(-2000)}`);
        assert.equal((JSON.parse(body) as { error: { code: string } }).error.code, 'database_unavailable');
      }
    } finally {
      await silentProxy.close();
      await silent?.stop();
    }
  });

  it('starts while PostgreSQL is down: 503 until it is up, then serves without a restart; SIGTERM in a black hole exits 0 in time', async (t) => {
    const downProxy = await new FaultProxy(upstream()).start(true);
    let late: ServerProcess | undefined;
    let lateLoad: FaultLoad | undefined;
    try {
      // The operator defaults here (statement timeout 5 s, deadline 15 s): the stop must fit its grace with them.
      const { DATABASE_STATEMENT_TIMEOUT_MS: _statement, REQUEST_DEADLINE_MS: _deadline, ...defaults } = env;
      late = await startServerProcess({ ...defaults, DATABASE_URL: throughProxy(testDb.url, downProxy, `${applicationName}-late`) });
      const read = await timed(() => fetch(`${late?.baseUrl}/admin/v0/calendar_events`, { headers: { authorization } }));
      const body = (await read.value.json()) as { error: { code: string } };
      assert.equal(read.value.status, 503);
      assert.equal(body.error.code, 'database_unavailable');
      assert.ok(read.value.headers.get('retry-after'));
      assert.ok(read.ms < outageAnswerMs + slack / 2, `took ${read.ms} ms`);
      const readiness = await timed(() => fetch(`${late?.baseUrl}/readyz`));
      assert.equal(readiness.value.status, 503);
      assert.ok(readiness.ms < 1000 + slack / 2, `readyz took ${readiness.ms} ms`);
      downProxy.heal();
      const healedAt = Date.now();
      let status = 0;
      while (Date.now() - healedAt < recoveryMs && status !== 200) {
        status = (await fetch(`${late.baseUrl}/admin/v0/calendar_events`, { headers: { authorization } })).status;
        if (status !== 200) await pause(200);
      }
      t.diagnostic(
        `started down: first read ${read.ms} ms (503), readyz ${readiness.ms} ms; served ${Date.now() - healedAt} ms after PostgreSQL came up`,
      );
      assert.equal(status, 200, `not served within ${recoveryMs} ms of PostgreSQL coming up:\n${late.output().slice(-2000)}`);
      assert.equal((await fetch(`${late.baseUrl}/readyz`)).status, 200);

      // Silence with requests in flight, then SIGTERM: each would wait out its statement timeout (and more).
      lateLoad = new FaultLoad(late.baseUrl, authorization, 6).start();
      await pause(500);
      downProxy.blackHole();
      await pause(500);
      const running = late;
      const stoppedAt = Date.now();
      running.child.kill('SIGTERM');
      if (running.child.exitCode === null) await once(running.child, 'exit');
      const stopMs = Date.now() - stoppedAt;
      await lateLoad.stop();
      assert.equal(running.child.exitCode, 0, running.output().slice(-3000));
      assert.ok(stopMs < 9000, `the stop took ${stopMs} ms`);
      t.diagnostic(`stop in a black hole with the default timeouts: ${stopMs} ms`);
      const answered = lateLoad.since(stoppedAt).filter((answer) => answer.status !== 'no answer');
      assert.deepEqual(wrongAnswers(answered), [], `${summary(answered)}\n${running.output().slice(-4000)}`);
    } finally {
      await lateLoad?.stop();
      await late?.stop();
      await downProxy.close();
    }
  });
});
