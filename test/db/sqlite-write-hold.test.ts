import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import Sqlite from 'better-sqlite3';
import { migrateToLatest, openDatabase } from '../../src/db/database.js';
import { holdSqliteWrites } from '../../src/db/prepared-query.js';
import { createCommunity } from '../../src/modules/communities/communities.commands.js';
import { IdempotencyService } from '../../src/modules/idempotency/idempotency.commands.js';
import { systemClock } from '../../src/shared/clock.js';
import { durationMs } from '../../src/shared/time.js';

// While the WAL starts over (src/db/sqlite-checkpoints.ts) the read thread's connection holds
// SQLite's write lock, and the server's writes are held. A write that skips Kysely's connection
// (an idempotency claim: one prepared statement outside a transaction) must wait in Kysely's queue
// then: run on the handle, it waits for the lock in SQLite's busy handler, which sleeps on the
// event loop, and here, where the lock is released only by the event loop, until it gives up.

describe('writes held for a WAL start over', () => {
  const dir = mkdtempSync(join(tmpdir(), 'community-admin-write-hold-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a claim sent meanwhile waits without stopping the event loop, and is made once the hold ends', async () => {
    const path = join(dir, 'hold.db');
    const database = openDatabase({ engine: 'sqlite', path }, { timeouts: { statementMs: durationMs(1000), connectMs: durationMs(1000) } });
    const lockHolder = new Sqlite(path);
    try {
      await migrateToLatest(database);
      const community = await createCommunity({ database, clock: systemClock }, { name: 'Hold', plan: 'enterprise' });
      const idempotency = new IdempotencyService(database, systemClock);
      let ticks = 0;
      const ticker = setInterval(() => ticks++, 5);
      let claim: ReturnType<IdempotencyService['claim']> | undefined;
      try {
        await holdSqliteWrites(database.db, async () => {
          // Another connection takes SQLite's write lock, as the checkpoint's RESTART does.
          lockHolder.exec('BEGIN IMMEDIATE');
          claim = idempotency.claim(community.id, randomUUID(), 'fingerprint');
          const before = ticks;
          await sleep(200);
          assert.ok(ticks >= before + 10, `the event loop ran while the writes were held (${ticks - before} ticks of 5 ms in 200 ms)`);
          lockHolder.exec('COMMIT');
        });
      } finally {
        clearInterval(ticker);
      }
      assert.equal((await claim)?.kind, 'claimed');
    } finally {
      lockHolder.close();
      await database.close();
    }
  });
});
