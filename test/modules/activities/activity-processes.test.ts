// The activity log against real server processes: two instances on one PostgreSQL writing at once
// keep one chain per community (no fork, no gap), and a server killed with SIGKILL under write load
// leaves a log that matches exactly the writes that committed.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { verifyChain } from '../../../src/modules/activities/reads/verify-chain.js';
import { createApiKey } from '../../../src/modules/api-keys/api-keys.commands.js';
import { createCommunity } from '../../../src/modules/communities/communities.commands.js';
import { systemClock } from '../../../src/shared/clock.js';
import { ensureBuilt, type ServerProcess, startServerProcess } from '../../http/server-processes.js';
import { createTestDatabase, engines, postgresSkipReason, type TestDatabase } from '../../support/harness.js';

const loadEnv = { RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '100000' };

/** Adds member n; the answer's status, or null when no answer came (the server died). */
async function addMember(baseUrl: string, authorization: string, n: number): Promise<number | null> {
  try {
    const res = await fetch(`${baseUrl}/admin/v0/members`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ email: `m${n}@log.example.org`, full_name: `Member ${n}` }),
    });
    await res.text();
    return res.status;
  } catch {
    return null;
  }
}

/** The full names of the member.created records, and every record's seq, straight from the table. */
async function logged(testDb: TestDatabase, communityId: string) {
  const rows = (
    await sql<{ seq: number; action: string; target_name: string | null }>`
      select seq, action, target_name from activities where community_id = ${communityId} order by seq`.execute(testDb.database.db)
  ).rows;
  return {
    created: rows.filter((r) => r.action === 'member.created').map((r) => String(r.target_name)),
    seqs: rows.map((r) => Number(r.seq)),
  };
}

async function members(testDb: TestDatabase, communityId: string): Promise<Set<string>> {
  const rows = (
    await sql<{ full_name: string }>`select full_name from members where community_id = ${communityId}`.execute(testDb.database.db)
  ).rows;
  return new Set(rows.map((r) => r.full_name));
}

describe(
  'two server processes on one PostgreSQL writing at once keep one chain per community',
  { skip: postgresSkipReason, timeout: 90_000 },
  () => {
    let testDb: TestDatabase;
    let servers: ServerProcess[] = [];
    before(async () => {
      ensureBuilt();
      testDb = await createTestDatabase('postgres');
      servers = await Promise.all([startServerProcess({ ...testDb.env, ...loadEnv }), startServerProcess({ ...testDb.env, ...loadEnv })]);
    });
    after(async () => {
      await Promise.all(servers.map((server) => server.stop()));
      await testDb?.drop();
    });

    it('200 member adds spread over both instances, 16 at a time each: one record each, seqs 1..n, the chain verifies', async () => {
      const communities: { id: string; authorization: string }[] = [];
      for (const name of ['One', 'Two']) {
        const community = await createCommunity({ database: testDb.database, clock: systemClock }, { name: name, plan: 'enterprise' });
        const key = await createApiKey({ database: testDb.database, clock: systemClock, communityId: community.id }, { label: 'load' });
        communities.push({ id: community.id, authorization: `Bearer ${key.key}` });
      }
      let next = 0;
      const statuses: (number | null)[] = [];
      const worker = async (server: ServerProcess) => {
        for (let n = next++; n < 200; n = next++) {
          const community = communities[n % 2] as { id: string; authorization: string };
          statuses.push(await addMember(server.baseUrl, community.authorization, n));
        }
      };
      await Promise.all(servers.flatMap((server) => Array.from({ length: 16 }, () => worker(server))));
      assert.deepEqual(
        statuses.filter((s) => s !== 201),
        [],
      );
      for (const community of communities) {
        const { created, seqs } = await logged(testDb, community.id);
        assert.equal(created.length, 100);
        assert.deepEqual(
          seqs,
          seqs.map((_, i) => i + 1),
          'one chain, no gap',
        );
        const verdict = await verifyChain(testDb.database.db, community.id);
        assert.equal(verdict.ok, true, JSON.stringify(verdict.problem));
        assert.equal(verdict.records, 101);
      }
    });
  },
);

for (const { engine, skip } of engines) {
  describe(`the activity log after a SIGKILL under write load [${engine}]`, { skip, timeout: 90_000 }, () => {
    let testDb: TestDatabase;
    let server: ServerProcess | undefined;
    before(async () => {
      ensureBuilt();
      testDb = await createTestDatabase(engine);
    });
    after(async () => {
      await server?.stop();
      await testDb?.drop();
    });

    it('every acknowledged write has its record, and every record a committed write', async (t) => {
      const community = await createCommunity({ database: testDb.database, clock: systemClock }, { name: 'Killed', plan: 'enterprise' });
      const authorization = `Bearer ${(await createApiKey({ database: testDb.database, clock: systemClock, communityId: community.id }, { label: 'load' })).key}`;
      server = await startServerProcess({ ...testDb.env, ...loadEnv });
      const answers = new Map<number, number | null>();
      let next = 0;
      let killed = false;
      const target = server;
      const worker = async () => {
        while (!killed) {
          const n = next++;
          answers.set(n, null);
          answers.set(n, await addMember(target.baseUrl, authorization, n));
        }
      };
      const workers = Array.from({ length: 12 }, worker);
      const deadline = Date.now() + 30_000;
      while ([...answers.values()].filter((s) => s !== null).length < 300 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      target.child.kill('SIGKILL');
      killed = true;
      await Promise.all(workers);
      await target.stop();
      server = undefined;

      const acknowledged = [...answers].filter(([, status]) => status === 201).map(([n]) => `Member ${n}`);
      const unanswered = [...answers].filter(([, status]) => status === null).map(([n]) => `Member ${n}`);
      t.diagnostic(`${acknowledged.length} acknowledged, ${unanswered.length} unanswered`);
      assert.ok(acknowledged.length >= 100, `only ${acknowledged.length} answered: ${target.output()}`);
      assert.ok(unanswered.length > 0, 'the kill interrupted no request');
      const { created } = await logged(testDb, community.id);
      const recorded = new Set(created);
      const stored = await members(testDb, community.id);
      for (const name of acknowledged) assert.ok(recorded.has(name), `acknowledged without its record: ${name}`);
      assert.deepEqual([...recorded].sort(), [...stored].sort(), 'the records are exactly the members committed');
      assert.equal(created.length, recorded.size, 'one record per member');
      const verdict = await verifyChain(testDb.database.db, community.id);
      assert.equal(verdict.ok, true, JSON.stringify(verdict.problem));
    });
  });
}
