import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ensureBuilt, startServerProcess } from '../http/server-processes.js';
import { parseJsonOutput, runCli } from '../support/cli.js';

// A server on SQLite checkpoints its WAL on the read thread, not at the end of a commit on its event
// loop (src/db/sqlite-checkpoints.ts). Seen from outside through Linux's per-thread I/O counts: a
// checkpoint copies the WAL's pages into the database file (each page once, however often the WAL
// holds it), so once the server has written more than SQLite's 1,000 pages of WAL, a thread other
// than the main one has written pages of the database (with SQLite's own checkpoints the main
// thread writes them, and the server's other threads write nothing of the kind).

/** Bytes each thread of a process handed to write(2) and its kin, by thread id. */
function bytesWrittenByThread(pid: number): Map<number, number> {
  const written = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const io = readFileSync(`/proc/${pid}/task/${tid}/io`, 'utf8');
    written.set(Number(tid), Number(/^wchar: (\d+)$/m.exec(io)?.[1] ?? 0));
  }
  return written;
}

const procIo = existsSync(`/proc/${process.pid}/task/${process.pid}/io`);

describe(
  'a server on SQLite checkpoints its WAL off the event loop',
  { skip: procIo ? false : 'needs /proc/PID/task/TID/io (Linux)' },
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'community-admin-checkpoints-'));
    after(() => rmSync(dir, { recursive: true, force: true }));

    /** A server on a new database file of `dir`, with a community and its key (the CLI's). */
    async function serverWithKey(file: string) {
      ensureBuilt();
      const env = { DATABASE_URL: `sqlite:${join(dir, file)}` };
      const community = parseJsonOutput<{ id: string }>(
        await runCli(['community', 'create', '--name', 'Checkpoints', '--plan', 'enterprise', '--json'], env),
      );
      const { key } = parseJsonOutput<{ key: string }>(await runCli(['key', 'create', '--community', community.id, '--json'], env));
      // The request budget out of the way: the tests send as fast as the server answers.
      return { server: await startServerProcess({ ...env, RATE_LIMIT_PER_SECOND: '100000' }), key };
    }

    it("past 1,000 pages of WAL, the pages are copied into the database file by another thread than the event loop's", async () => {
      const { server, key } = await serverWithKey('community.db');
      try {
        const pid = server.child.pid as number;
        const pageBytes = 4096;
        const threadsWrote = () => {
          const written = bytesWrittenByThread(pid);
          const main = written.get(pid) ?? 0;
          written.delete(pid);
          return { main, others: Math.max(0, ...written.values()) };
        };
        // Member adds until the event loop has written well over 1,000 pages (the WAL, and the answers).
        for (let n = 0; threadsWrote().main < 1500 * pageBytes; n++) {
          const res = await fetch(`${server.baseUrl}/admin/v0/members`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
            body: JSON.stringify({ email: `checkpoint-${n}@example.com`, full_name: `Checkpoint ${n}` }),
          });
          assert.equal(res.status, 201, await res.text());
          assert.ok(n < 5000, 'the server wrote less than expected');
        }
        let wrote = threadsWrote();
        // The pages a run of member adds rewrites: the members' tables, their indexes, the community's row.
        const pagesCopied = 16;
        for (let waited = 0; wrote.others < pagesCopied * pageBytes && waited < 5000; waited += 100) {
          await sleep(100);
          wrote = threadsWrote();
        }
        assert.ok(
          wrote.others >= pagesCopied * pageBytes,
          `a thread other than the event loop's copied the WAL (${JSON.stringify(wrote)})`,
        );
      } finally {
        await server.stop();
      }
    });

    it('under writes that never pause, the WAL starts over from its beginning: its file stays a fraction of what was written', async () => {
      const walPath = join(dir, 'saturated.db');
      const { server, key } = await serverWithKey('saturated.db');
      try {
        const pid = server.child.pid as number;
        const mainWrote = () => bytesWrittenByThread(pid).get(pid) ?? 0;
        // A checkpoint copies what the WAL holds, but only a writer that finds all of it copied
        // starts the WAL over; with a write always in flight (16 here) that moment must be made.
        // Before it was, the WAL grew by every page written (740 MB in 8 s of wrk's member adds).
        const written = 192 * 1024 * 1024;
        let n = 0;
        const client = async () => {
          while (mainWrote() < written) {
            const i = n++;
            const res = await fetch(`${server.baseUrl}/admin/v0/members`, {
              method: 'POST',
              headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
              body: JSON.stringify({ email: `saturated-${i}@example.com`, full_name: `Saturated ${i}` }),
            });
            assert.equal(res.status, 201, await res.text());
          }
        };
        await Promise.all(Array.from({ length: 16 }, client));
        const walBytes = statSync(`${walPath}-wal`).size;
        assert.ok(
          walBytes < written / 2,
          `the WAL file holds ${(walBytes / 2 ** 20).toFixed(1)} MB after ${(mainWrote() / 2 ** 20).toFixed(1)} MB written by ${n} member adds`,
        );
      } finally {
        await server.stop();
      }
    });
  },
);
