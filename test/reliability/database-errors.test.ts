import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { sqliteDriver } from '../../src/db/sqlite-driver.js';
import { postgresSkipReason, postgresUrl, startTestApp, type TestApp } from '../support/harness.js';

const addMember = (app: TestApp, auth: { authorization: string }, email: string, key: string) =>
  app.request({
    method: 'POST',
    url: '/admin/v0/members',
    headers: { ...auth, 'idempotency-key': key },
    payload: { email, full_name: 'Disk full' },
  });

/** A session that holds the members table against writes (reads go on) until it rolls back. */
async function holdMembers(app: TestApp): Promise<pg.Client> {
  const blocker = new pg.Client({ connectionString: app.testDb.url });
  await blocker.connect();
  await blocker.query('begin');
  await blocker.query('lock table members in exclusive mode');
  return blocker;
}

const membersNamed = async (app: TestApp, emails: string[]) =>
  emails.length === 0 ? [] : app.database.db.selectFrom('members').select('email').where('email', 'in', emails).execute();

// SQLite's own failures: a lock held past busy_timeout (another process writing), and a full disk
// (a page limit stands in for the file system: safe, and the same SQLITE_FULL).
describe('SQLite that cannot write', () => {
  let app: TestApp;
  let auth: { authorization: string };

  before(async () => {
    app = await startTestApp('sqlite');
    auth = (await app.community()).auth;
  });

  after(async () => {
    await app.app.close();
    await app.testDb.drop();
  });

  it('a write lock held elsewhere past busy_timeout answers 503 database_unavailable; the retry with the same key succeeds', async () => {
    app.database.sqlite?.pragma('busy_timeout = 200');
    // The server's own driver: SQLite's locks are per process, so a second SQLite library in this
    // process (better-sqlite3 12 beside 13 on Node 24) would not see the lock this one holds.
    const Driver = sqliteDriver();
    const other = new Driver(app.testDb.url.slice('sqlite:'.length));
    const key = randomUUID();
    try {
      other.exec('begin immediate');
      const refused = await addMember(app, auth, 'busy@faults.example.org', key);
      assert.equal(refused.statusCode, 503, refused.body);
      assert.equal(refused.json<{ error: { code: string } }>().error.code, 'database_unavailable');
      assert.ok(refused.headers['retry-after']);
      other.exec('rollback');
    } finally {
      other.close();
    }
    const retried = await addMember(app, auth, 'busy@faults.example.org', key);
    assert.equal(retried.statusCode, 201, retried.body);
    assert.equal((await membersNamed(app, ['busy@faults.example.org'])).length, 1);
  });

  it('a full disk answers 503 database_unavailable, never a 500, and loses no acknowledged write', async () => {
    const sqlite = app.database.sqlite as SqliteDatabase.Database;
    const pages = Number(sqlite.pragma('page_count', { simple: true }));
    sqlite.pragma(`max_page_count = ${pages + 8}`);
    const acknowledged: string[] = [];
    let refused: { email: string; key: string } | null = null;
    try {
      for (let n = 0; n < 2000 && !refused; n++) {
        const email = `full-${n}-${'x'.repeat(150)}@faults.example.org`;
        const key = randomUUID();
        const res = await addMember(app, auth, email, key);
        if (res.statusCode === 201) acknowledged.push(email);
        else {
          assert.equal(res.statusCode, 503, res.body);
          assert.equal(res.json<{ error: { code: string } }>().error.code, 'database_unavailable');
          assert.ok(res.headers['retry-after']);
          refused = { email, key };
        }
      }
      assert.ok(refused, 'the page limit was never reached');
      assert.ok(acknowledged.length > 0);
    } finally {
      sqlite.pragma('max_page_count = 4294967294');
    }
    assert.equal((await membersNamed(app, acknowledged)).length, acknowledged.length, 'an acknowledged member is missing');
    const retried = await addMember(app, auth, refused.email, refused.key);
    assert.equal(retried.statusCode, 201, retried.body);
  });
});

// REQUEST_DEADLINE_MS: a write stuck behind a lock answers 503 at the deadline and is rolled back
// when it reaches its commit, so the client's retry (same Idempotency-Key) is the one that counts.
// Liveness: a plain outage is readiness' business, but a process whose every pooled connection is
// stuck past any deadline cannot serve again by itself, and must say so to its orchestrator.
describe('requests stuck behind a lock on PostgreSQL: the deadline, and liveness', { skip: postgresSkipReason }, () => {
  let app: TestApp;
  let community: Awaited<ReturnType<TestApp['community']>>;

  before(async () => {
    // The timeouts here only set how long a connection counts as stuck: 1 s + 2 × (0.1 s + 0.1 s).
    app = await startTestApp('postgres', {
      env: { REQUEST_DEADLINE_MS: '1000', DATABASE_STATEMENT_TIMEOUT_MS: '100', DATABASE_CONNECT_TIMEOUT_MS: '100' },
    });
    community = await app.community();
  });

  after(async () => {
    await app?.app.close();
    await app?.testDb.drop();
  });

  it('answers 503 request_timeout at the deadline, rolls its write back, and frees its key', async () => {
    const key = randomUUID();
    const email = 'late@faults.example.org';
    // The member's insert waits for the lock, and so the write waits before its commit.
    const blocker = await holdMembers(app);
    try {
      const started = Date.now();
      const late = await addMember(app, community.auth, email, key);
      const tookMs = Date.now() - started;
      assert.equal(late.statusCode, 503, late.body);
      assert.equal(late.json<{ error: { code: string } }>().error.code, 'request_timeout');
      assert.ok(late.headers['retry-after']);
      assert.ok(tookMs >= 900 && tookMs < 3000, `answered after ${tookMs} ms`);
    } finally {
      await blocker.query('rollback');
      await blocker.end();
    }
    // The abandoned write now reaches its commit and rolls back.
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal((await membersNamed(app, [email])).length, 0, 'the write answered 503 was committed');
    const retried = await addMember(app, community.auth, email, key);
    assert.equal(retried.statusCode, 201, retried.body);
    assert.equal((await membersNamed(app, [email])).length, 1);
  });

  it('/healthz answers 503 once every connection is stuck past the deadlines, and 200 again once they are freed', async () => {
    const blocker = await holdMembers(app);
    let writes: Promise<unknown>[] = [];
    try {
      assert.equal((await app.request({ method: 'GET', url: '/healthz' })).statusCode, 200);
      // The harness's pool has 5 connections, without timeouts of its own: 5 writes hold them all.
      writes = Array.from({ length: 5 }, (_, n) =>
        app.request({
          method: 'POST',
          url: '/admin/v0/members',
          headers: community.auth,
          payload: { email: `stuck-${n}@faults.example.org`, full_name: 'Stuck' },
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 600));
      assert.equal((await app.request({ method: 'GET', url: '/healthz' })).statusCode, 200, 'not stuck yet: within the deadlines');
      await new Promise((resolve) => setTimeout(resolve, 1200));
      const stuck = await app.request({ method: 'GET', url: '/healthz' });
      assert.equal(stuck.statusCode, 503, stuck.body);
    } finally {
      await blocker.query('rollback');
      await blocker.end();
    }
    const answers = await Promise.all(writes);
    assert.ok(answers.every((answer) => (answer as { statusCode: number }).statusCode === 503));
    // The abandoned writes now reach their commits, roll back and give their connections back.
    let live = 0;
    for (let waited = 0; waited < 3000 && live !== 200; waited += 100) {
      live = (await app.request({ method: 'GET', url: '/healthz' })).statusCode;
      if (live !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(live, 200);
    assert.equal((await membersNamed(app, ['stuck-0@faults.example.org'])).length, 0, 'a write answered 503 was committed');
  });
});

if (!postgresUrl) process.stdout.write(`# ${postgresSkipReason}\n`);
