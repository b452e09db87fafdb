// Crash safety: a real server under a write load is killed with SIGKILL, restarted on the same
// database, and every write it had answered 2xx must be there, every write it had refused must
// have left nothing behind, and every answered idempotent request must still replay.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runImport } from '../../src/import/run-import.js';
import { createApiKey } from '../../src/modules/api-keys/api-keys.commands.js';
import { createCommunity } from '../../src/modules/communities/communities.commands.js';
import { systemClock } from '../../src/shared/clock.js';
import { ensureBuilt, type ServerProcess, startServerProcess } from '../http/server-processes.js';
import { createTestDatabase, engines, type TestDatabase } from '../support/harness.js';
import { send, WriteLoad, type WriteRecord } from './support/write-load.js';

const profiles = 40;
const attendeeEvents = 20;
const deletableEvents = 10;
/** Answered requests before the kill: enough that the load is in full flow, bounded to keep the test short. */
const answeredBeforeKill = 400;

const eventId = (n: number) => `crash${String(n).padStart(7, '0')}`;
const chatUserId = (n: number) => `UCRASH${String(n).padStart(4, '0')}`;

function seedDocument(now: number): Record<string, unknown> {
  return {
    profiles: Array.from({ length: profiles }, (_, i) => ({
      profile_id: `c0000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`,
      email: `p${i + 1}@crash.example.org`,
      first_name: `P${i + 1}`,
      chat_user_id: chatUserId(i + 1),
    })),
    calendar_events: Array.from({ length: attendeeEvents + deletableEvents }, (_, i) => ({
      id: eventId(i + 1),
      title: `Event ${i + 1}`,
      status: 'published',
      start_date: new Date(now + (i + 1) * 86_400_000).toISOString(),
    })),
  };
}

for (const { engine, skip } of engines) {
  describe(`crash safety under write load [${engine}]`, { skip, timeout: 90_000 }, () => {
    let testDb: TestDatabase;
    let authorization: string;
    let server: ServerProcess | undefined;
    let records: WriteRecord[] = [];
    const env = () => ({ ...testDb.env, RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '100000' });

    before(async () => {
      ensureBuilt();
      testDb = await createTestDatabase(engine);
      const community = await createCommunity({ database: testDb.database, clock: systemClock }, { name: 'Crash', plan: 'enterprise' });
      authorization = `Bearer ${(await createApiKey({ database: testDb.database, clock: systemClock, communityId: community.id }, {})).key}`;
      await runImport({ database: testDb.database, clock: systemClock, communityId: community.id }, seedDocument(Date.now()));
    });
    after(async () => {
      await server?.stop();
      await testDb?.drop();
    });

    it('SIGKILL mid-load, then a restart on the same database', async (t) => {
      const first = await startServerProcess(env());
      const load = new WriteLoad({
        baseUrl: first.baseUrl,
        authorization,
        attendeeEventIds: Array.from({ length: attendeeEvents }, (_, i) => eventId(i + 1)),
        deletableEventIds: Array.from({ length: deletableEvents }, (_, i) => eventId(attendeeEvents + i + 1)),
        chatUserIds: Array.from({ length: profiles }, (_, i) => chatUserId(i + 1)),
        workers: 12,
      });
      const running = load.run();
      await Promise.race([load.answeredAtLeast(answeredBeforeKill), new Promise((resolve) => setTimeout(resolve, 20_000))]);
      first.child.kill('SIGKILL');
      records = await running;
      await first.stop();
      server = await startServerProcess(env());

      const answered = records.filter((r) => r.status !== null);
      const inFlight = records.length - answered.length;
      const tally: Record<string, number> = {};
      for (const r of records) tally[`${r.kind} ${r.status ?? 'in flight'}`] = (tally[`${r.kind} ${r.status ?? 'in flight'}`] ?? 0) + 1;
      t.diagnostic(JSON.stringify(tally));
      assert.ok(answered.length >= answeredBeforeKill, `only ${answered.length} answered`);
      assert.ok(inFlight > 0, 'the kill did not interrupt any request: not a mid-load crash');
      assert.deepEqual(
        answered.filter((r) => (r.status as number) >= 500),
        [],
      );
    });

    const base = () => {
      assert.ok(server, 'server not restarted');
      return server.baseUrl;
    };
    const isMember = async (email: string) => {
      const res = await fetch(`${base()}/admin/v0/members/check`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ email }),
      });
      return ((await res.json()) as { data: { is_member: boolean } }).data.is_member;
    };

    it('every member add answered 2xx exists and replays; every refused one created nothing and answers the same', async () => {
      for (const record of records.filter((r) => r.kind === 'add' || r.kind === 'add_refused')) {
        const email = record.subject.email as string;
        if (record.status === null) continue;
        if (record.status < 300) {
          assert.equal(await isMember(email), true, `answered ${record.status} but missing: ${email}`);
          const replay = await send(base(), authorization, record);
          assert.equal(replay.replayed, true, `no replay for ${email}: ${replay.status} ${replay.body}`);
          assert.equal(replay.status, record.status);
          assert.equal(replay.body, record.responseBody);
        } else {
          assert.equal(await isMember(email), false, `refused with ${record.status} but created: ${email}`);
          const again = await send(base(), authorization, record);
          assert.equal(again.status, record.status, again.body);
        }
      }
    });

    it('every event deletion answered 200 stays deleted and replays', async () => {
      for (const record of records.filter((r) => r.kind === 'delete' && r.status !== null)) {
        const res = await fetch(`${base()}${record.path}`, { headers: { authorization } });
        assert.equal(res.status, 404, `${record.path} answered ${record.status} but is back`);
        if (record.status === 200) {
          const replay = await send(base(), authorization, record);
          assert.deepEqual([replay.status, replay.replayed, replay.body], [200, true, record.responseBody]);
        }
      }
    });

    it('attendee counts hold every update answered 200, none refused, and updates replay', async () => {
      const attendeeRecords = records.filter((r) => r.kind === 'attendee' || r.kind === 'attendee_unknown_user');
      assert.ok(attendeeRecords.filter((r) => r.kind === 'attendee_unknown_user').every((r) => r.status === null || r.status === 404));
      for (let n = 1; n <= attendeeEvents; n++) {
        const id = eventId(n);
        const mine = records.filter((r) => r.kind === 'attendee' && r.subject.eventId === id);
        const confirmed = mine.filter((r) => r.status === 200).length;
        const unknown = mine.filter((r) => r.status === null).length;
        const res = await fetch(`${base()}/admin/v0/calendar_events/${id}`, { headers: { authorization } });
        const count = ((await res.json()) as { data: { attendees_count: number } }).data.attendees_count;
        assert.ok(
          count >= confirmed && count <= confirmed + unknown,
          `${id}: ${count} attendees, ${confirmed} confirmed, ${unknown} unknown`,
        );
      }
      for (const record of attendeeRecords.filter((r) => r.status === 200)) {
        const replay = await send(base(), authorization, record);
        assert.deepEqual([replay.status, replay.replayed], [200, true], replay.body);
      }
    });

    it('requests in flight at the kill left a consistent state: a retry never fails with a 5xx', async () => {
      for (const record of records.filter((r) => r.status === null)) {
        const retry = await send(base(), authorization, record);
        // 409: the claim of the killed request is still leased (it expires after a minute).
        assert.ok(retry.status < 500, `${record.kind} retry: ${retry.status} ${retry.body}`);
      }
    });
  });
}
