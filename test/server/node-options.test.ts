import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ensureBuilt, type ServerProcess, startServerProcess } from '../http/server-processes.js';
import { createTestDatabase, postgresUrl, type TestDatabase } from '../support/harness.js';

// On PostgreSQL the server needs a larger young generation than node's default (docs/performance.md),
// which node takes only at start: `serve` relaunches itself with the option. These tests look at the
// processes themselves (Linux /proc): which node runs the server, and with what.

const noProc = existsSync('/proc/self/cmdline') ? false : 'needs /proc (Linux)';
const option = '--max-semi-space-size=64';

const cmdlineOf = (pid: number): string[] => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);

/** The processes whose parent is `pid`. */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name (in parentheses) may hold spaces: the fields after it are what we read.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === pid) children.push(Number(entry));
    } catch {
      // Gone in the meantime.
    }
  }
  return children;
}

async function answersAndStops(server: ServerProcess): Promise<void> {
  assert.equal((await fetch(`${server.baseUrl}/healthz`)).status, 200);
  await server.stop();
  assert.equal(server.child.exitCode, 0, server.output());
}

describe('the node that runs the server', { skip: noProc }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'community-admin-node-options-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  before(() => ensureBuilt());

  it('on SQLite: node as started, with its defaults', async () => {
    const server = await startServerProcess({ DATABASE_URL: `sqlite:${join(dir, 'community.db')}` });
    const pid = server.child.pid as number;
    assert.ok(!cmdlineOf(pid).includes(option), cmdlineOf(pid).join(' '));
    assert.deepEqual(childrenOf(pid), [], 'no second process');
    await answersAndStops(server);
  });

  describe('on PostgreSQL', { skip: postgresUrl ? false : 'needs TEST_DATABASE_URL' }, () => {
    let testDb: TestDatabase;
    before(async () => {
      testDb = await createTestDatabase('postgres');
    });
    after(async () => testDb?.drop());

    it(`relaunches itself with ${option}, and stops with exit 0 on SIGTERM through the relaunch`, async () => {
      const server = await startServerProcess(testDb.env);
      const children = childrenOf(server.child.pid as number);
      assert.equal(children.length, 1, `one relaunched server: ${children.join(', ')}`);
      assert.ok(cmdlineOf(children[0] as number).includes(option), cmdlineOf(children[0] as number).join(' '));
      await answersAndStops(server);
      assert.ok(!existsSync(`/proc/${children[0]}`), 'the relaunched server stopped too');
    });

    it('does not relaunch when node already has the option', async () => {
      const server = await startServerProcess({ ...testDb.env, NODE_OPTIONS: option });
      assert.deepEqual(childrenOf(server.child.pid as number), []);
      await answersAndStops(server);
    });
  });
});
