import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { createApiKey } from '../../src/modules/api-keys/api-keys.commands.js';
import { createCommunity } from '../../src/modules/communities/communities.commands.js';
import { systemClock } from '../../src/shared/clock.js';
import { runCli } from '../support/cli.js';
import { createTestDatabase, postgresUrl, type TestDatabase } from '../support/harness.js';
import { ensureBuilt, type ServerProcess, startServerProcess } from './server-processes.js';

const skip = postgresUrl
  ? false
  : 'graceful stop on PostgreSQL skipped: it needs TEST_DATABASE_URL (e.g. TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm test)';

// On PostgreSQL a request waits for the database between its statements, so a stop (SIGTERM) finds
// requests half done. Each must still get its whole answer: the database closes after the last one.
describe('SIGTERM with requests in flight on PostgreSQL', { skip }, () => {
  let testDb: TestDatabase;
  let server: ServerProcess | undefined;
  let key = '';

  before(async () => {
    ensureBuilt();
    testDb = await createTestDatabase('postgres');
    const community = await createCommunity(
      { database: testDb.database, clock: systemClock },
      { name: 'Graceful stop', plan: 'enterprise' },
    );
    key = (await createApiKey({ database: testDb.database, clock: systemClock, communityId: community.id }, { label: 'stop' })).key;
    const seeded = await runCli(
      ['seed', '--community', community.id, '--events', '300', '--posts', '0', '--profiles', '100', '--json'],
      testDb.env,
    );
    assert.equal(seeded.code, 0, seeded.stderr);
  });

  after(async () => {
    await server?.stop();
    await testDb?.drop();
  });

  it('answers every request it accepted in full, and none with a 500', async () => {
    // No response cache: every request reads the database (six statements per page).
    server = await startServerProcess({ ...testDb.env, RESPONSE_CACHE_MB: '0', RATE_LIMIT_PER_SECOND: '100000' });
    const running = server;
    const url = `${running.baseUrl}/admin/v0/calendar_events?per_page=50&page=1`;
    const statuses: (number | string)[] = [];
    const client = async () => {
      for (;;) {
        try {
          const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
          const text = await res.text();
          statuses.push(res.status);
          if (res.status === 200) JSON.parse(text);
        } catch {
          // Refused or closed once the server stops listening: not an answer, and not a wrong one.
          statuses.push('closed');
          return;
        }
        if (running.child.exitCode !== null) return;
      }
    };
    const clients = Array.from({ length: 30 }, client);
    // Stop once the server is busy: every client has had answers and has a request in flight.
    for (let waited = 0; statuses.length < 90 && waited < 20_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    running.child.kill('SIGTERM');
    await Promise.all(clients);
    // The stop finishes what is in flight and then exits by itself (a second SIGTERM would kill it).
    if (running.child.exitCode === null) await once(running.child, 'exit');
    const answered = statuses.filter((status) => status === 200).length;
    assert.ok(answered >= 90, `only ${answered} answers before the stop`);
    const wrong = statuses.filter((status) => status !== 200 && status !== 503 && status !== 'closed');
    assert.deepEqual(wrong, [], `answers other than 200, 503 or a closed connection:\n${running.output().slice(0, 3000)}`);
    assert.doesNotMatch(running.output(), /request failed/);
    assert.equal(running.child.exitCode, 0, running.output().slice(0, 3000));
  });
});
