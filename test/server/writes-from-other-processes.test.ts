import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { sqliteDriver } from '../../src/db/sqlite-driver.js';
import { ensureBuilt, startServerProcess } from '../http/server-processes.js';
import { day, event, hour } from '../modules/calendar-events/fixtures.js';
import { parseJsonOutput, runCli } from '../support/cli.js';

// A server on SQLite reuses the data version it read until something commits, which it learns from
// the WAL index that every connection shares (src/db/sqlite-commit-watch.ts). These tests write
// from other processes and connections while the server holds cached answers, and require its
// next answer to show the write.

describe('a server on SQLite sees writes made by other processes on its next answer', () => {
  const dir = mkdtempSync(join(tmpdir(), 'community-admin-watch-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'community.db');
  const env = { DATABASE_URL: `sqlite:${path}` };
  const start = (n: number) => new Date(Date.now() + n * day).toISOString();
  let file = 0;

  async function importEvents(communityId: string, ...events: Record<string, unknown>[]): Promise<void> {
    const name = join(dir, `import-${++file}.json`);
    writeFileSync(name, JSON.stringify({ calendar_events: events }));
    const result = await runCli(['import', name, '--community', communityId, '--json'], env);
    assert.equal(result.code, 0, result.stderr);
  }

  it('after a CLI import, a checkpoint that restarts the WAL, and a write on another connection', async () => {
    ensureBuilt();
    const community = parseJsonOutput<{ id: string }>(
      await runCli(['community', 'create', '--name', 'Watch', '--plan', 'enterprise', '--json'], env),
    );
    const { key } = parseJsonOutput<{ key: string }>(await runCli(['key', 'create', '--community', community.id, '--json'], env));
    await importEvents(community.id, event(1, start(1), hour));
    const server = await startServerProcess(env);
    try {
      const list = async () => {
        const res = await fetch(`${server.baseUrl}/admin/v0/calendar_events`, {
          headers: { authorization: `Bearer ${key}` },
        });
        assert.equal(res.status, 200);
        const body = (await res.json()) as { data: { total_records: number; records: { title: string }[] } };
        return { total: body.data.total_records, titles: body.data.records.map((r) => r.title) };
      };
      assert.deepEqual(await list(), { total: 1, titles: ['Event 1'] });
      // Answered from the cache now; the next write must still show on the very next answer.
      assert.deepEqual(await list(), { total: 1, titles: ['Event 1'] });

      await importEvents(community.id, event(2, start(2), hour));
      assert.deepEqual(await list(), { total: 2, titles: ['Event 1', 'Event 2'] });

      const other = new (sqliteDriver())(path);
      try {
        // The WAL starts over (new salts, frame count back to 0): the header must still differ.
        other.pragma('wal_checkpoint(TRUNCATE)');
        assert.deepEqual(await list(), { total: 2, titles: ['Event 1', 'Event 2'] });
        await importEvents(community.id, event(3, start(3), hour));
        assert.deepEqual(await list(), { total: 3, titles: ['Event 1', 'Event 2', 'Event 3'] });

        // A write that is neither the CLI nor the server: a connection of this process.
        other.pragma('wal_checkpoint(TRUNCATE)');
        other
          .prepare("update calendar_events set doc = json_set(doc, '$.title', ?) where community_id = ? and id = ?")
          .run('Event 3, renamed', community.id, event(3, start(3)).id);
        other.prepare('update communities set events_version = events_version + 1 where id = ?').run(community.id);
        assert.deepEqual(await list(), { total: 3, titles: ['Event 1', 'Event 2', 'Event 3, renamed'] });
      } finally {
        other.close();
      }
    } finally {
      await server.stop();
    }
  });
});
