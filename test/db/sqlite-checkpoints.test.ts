import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ensureBuilt, startServerProcess } from '../http/server-processes.js';
import { parseJsonOutput, runCli } from '../support/cli.js';

// A server on SQLite checkpoints its WAL on the read thread, not at the end of a commit on its event
// loop (src/db/sqlite-checkpoints.ts). SQLite's own checkpoint waits for 1,000 pages of WAL; the
// server's runs a moment after any write. So a few writes reach the database file itself while the
// server runs: with SQLite's own checkpoints (or none) the file would not change until the WAL
// held 1,000 pages or the server stopped.

describe('a server on SQLite checkpoints its WAL off the event loop', () => {
  const dir = mkdtempSync(join(tmpdir(), 'community-admin-checkpoints-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'community.db');
  const env = { DATABASE_URL: `sqlite:${path}` };

  it('a few writes are copied into the database file within a second, the server still running', async () => {
    ensureBuilt();
    const community = parseJsonOutput<{ id: string }>(
      await runCli(['community', 'create', '--name', 'Checkpoints', '--plan', 'enterprise', '--json'], env),
    );
    const { key } = parseJsonOutput<{ key: string }>(await runCli(['key', 'create', '--community', community.id, '--json'], env));
    const server = await startServerProcess(env);
    try {
      // The server's start writes too (migrations, its own rows): wait until that is in the file.
      await sleep(1000);
      const before = statSync(path).mtimeMs;
      for (let n = 0; n < 5; n++) {
        const res = await fetch(`${server.baseUrl}/admin/v0/members`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
          body: JSON.stringify({ email: `checkpoint-${n}@example.com`, full_name: `Checkpoint ${n}` }),
        });
        assert.equal(res.status, 201, await res.text());
      }
      const written = statSync(`${path}-wal`).mtimeMs;
      assert.ok(written > before, 'the writes went to the WAL');
      let copied = statSync(path).mtimeMs;
      for (let waited = 0; copied < written && waited < 3000; waited += 100) {
        await sleep(100);
        copied = statSync(path).mtimeMs;
      }
      assert.ok(copied >= written, 'the database file was written after the WAL: a checkpoint ran');
    } finally {
      await server.stop();
    }
  });
});
