import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ensureBuilt, startServerProcess } from '../http/server-processes.js';
import { createTestDatabase, postgresUrl, type TestDatabase } from '../support/harness.js';

// On PostgreSQL the server wants a larger young generation than node's default (docs/performance.md),
// which node takes only at start: `serve` says so when node was started without it.

const option = '--max-semi-space-size=32';

async function startupOutput(env: Record<string, string>): Promise<string> {
  const server = await startServerProcess(env);
  assert.equal((await fetch(`${server.baseUrl}/healthz`)).status, 200);
  await server.stop();
  assert.equal(server.child.exitCode, 0, server.output());
  return server.output();
}

describe('the node option the server asks for', () => {
  const dir = mkdtempSync(join(tmpdir(), 'community-admin-node-options-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  before(() => ensureBuilt());

  it('on SQLite: none, and no warning', async () => {
    assert.doesNotMatch(await startupOutput({ DATABASE_URL: `sqlite:${join(dir, 'community.db')}` }), /warning: on PostgreSQL/);
  });

  describe('on PostgreSQL', { skip: postgresUrl ? false : 'needs TEST_DATABASE_URL' }, () => {
    let testDb: TestDatabase;
    before(async () => {
      testDb = await createTestDatabase('postgres');
    });
    after(async () => testDb?.drop());

    it(`warns at start when node runs without ${option}`, async () => {
      const output = await startupOutput(testDb.env);
      assert.match(output, new RegExp(`warning: on PostgreSQL start node with ${option}`));
    });

    it('does not warn when node has it (NODE_OPTIONS)', async () => {
      assert.doesNotMatch(await startupOutput({ ...testDb.env, NODE_OPTIONS: option }), /warning: on PostgreSQL/);
    });
  });
});
