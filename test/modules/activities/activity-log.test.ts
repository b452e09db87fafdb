import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it } from 'node:test';
import { sql } from 'kysely';
import { runImport } from '../../../src/import/run-import.js';
import { ActivityRetentionWorker } from '../../../src/modules/activities/activities.worker.js';
import { verifyChain } from '../../../src/modules/activities/reads/verify-chain.js';
import { createApiKey, revokeApiKey, rotateApiKey, setApiKeyPermissions } from '../../../src/modules/api-keys/api-keys.commands.js';
import { createAward } from '../../../src/modules/awards/awards.commands.js';
import { createCommunity } from '../../../src/modules/communities/communities.commands.js';
import { durationMs } from '../../../src/shared/time.js';
import { exportText, importText } from '../../export/round-trip-support.js';
import { describeEachEngine, type TestApp } from '../../support/harness.js';

type Json = Record<string, unknown>;
interface Activity {
  id: string;
  occurred_at: string;
  action: string;
  actor: { type: string; id: string | null; label: string | null };
  target: { type: string; id: string | null; name: string | null };
  context: { request_id: string; ip: string | null; user_agent: string | null } | null;
  changes: Record<string, [unknown, unknown]> | null;
  metadata: Json | null;
  hash: string;
}
interface Page {
  success: true;
  data: { records: Activity[]; total_records: number; page: number; per_page: number; has_next: boolean };
}

const list = async (t: TestApp, auth: { authorization: string }, query = '') => {
  const res = await t.request({ method: 'GET', url: `/admin/v0/activities${query}`, headers: auth });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<Page>().data;
};

/** The community's records other than the key the harness made for it, oldest first. */
const changes = async (t: TestApp, auth: { authorization: string }) =>
  (await list(t, auth, '?per_page=100')).records.filter((r) => !(r.action === 'api_key.created' && r.actor.type === 'system')).reverse();

const profileId = randomUUID();

describeEachEngine('the activity log', (ctx) => {
  async function community(plan = 'enterprise') {
    const t = ctx();
    const c = await t.community(plan);
    await runImport(
      { database: t.database, clock: t.clock, communityId: c.id },
      {
        profiles: [{ profile_id: profileId, email: 'ada@example.com', chat_user_id: 'U0ADA' }],
        groups: [{ id: 'grp-1', name: 'One', member_profile_ids: [] }],
      },
    );
    return c;
  }

  it('records an event create, update and delete over the API: one record each, with the key, the request and the changes', async () => {
    const t = ctx();
    const c = await community();
    const headers = { ...c.auth, 'user-agent': 'activity-test/1.0', 'x-request-id': 'req-create-1' };
    const created = await t.request({
      method: 'POST',
      url: '/admin/v0/calendar_events',
      headers,
      payload: { title: 'Launch', start_date: '2026-12-01T18:00:00Z' },
    });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json<{ data: { id: string } }>().data.id;
    const updated = await t.request({
      method: 'PATCH',
      url: `/admin/v0/calendar_events/${id}`,
      headers: c.auth,
      payload: { title: 'Launch 2' },
    });
    assert.equal(updated.statusCode, 200, updated.body);
    const deleted = await t.request({ method: 'DELETE', url: `/admin/v0/calendar_events/${id}`, headers: c.auth });
    assert.equal(deleted.statusCode, 200, deleted.body);

    const records = await changes(t, c.auth);
    assert.deepEqual(
      records.map((r) => r.action),
      ['import.completed', 'calendar_event.created', 'calendar_event.updated', 'calendar_event.deleted'],
    );
    const [, create, update, remove] = records as [Activity, Activity, Activity, Activity];
    assert.deepEqual(create.actor, { type: 'api_key', id: c.keyId, label: 'test' });
    assert.deepEqual(create.target, { type: 'calendar_event', id, name: 'Launch' });
    assert.equal(create.context?.request_id, 'req-create-1');
    assert.equal(create.context?.user_agent, 'activity-test/1.0');
    assert.equal(create.context?.ip, '127.0.0.1');
    assert.equal(create.changes, null);
    assert.match(create.occurred_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?\+00:00$/);
    assert.deepEqual(update.changes?.title, ['Launch', 'Launch 2']);
    assert.equal(Object.keys(update.changes ?? {}).length, 1, 'only the field that changed');
    assert.deepEqual(remove.target, { type: 'calendar_event', id, name: 'Launch 2' });
    assert.match(remove.hash, /^[0-9a-f]{64}$/);
    assert.equal((await verifyChain(t.database.db, c.id)).ok, true);
  });

  it('records a member add, a group add, an attendee and an award assignment, each once', async () => {
    const t = ctx();
    const c = await community();
    const member = await t.request({
      method: 'POST',
      url: '/admin/v0/members',
      headers: c.auth,
      payload: { email: 'grace@example.com', full_name: 'Grace Hopper' },
    });
    assert.equal(member.statusCode, 201, member.body);
    const again = await t.request({
      method: 'POST',
      url: '/admin/v0/members',
      headers: c.auth,
      payload: { email: 'grace@example.com', full_name: 'Grace B. Hopper' },
    });
    assert.equal(again.statusCode, 200, again.body);
    const group = await t.request({
      method: 'POST',
      url: '/admin/v0/groups/grp-1/members',
      headers: c.auth,
      payload: { user: { profile_id: profileId } },
    });
    assert.equal(group.statusCode, 200, group.body);
    // Already a member: nothing changed, nothing recorded.
    await t.request({
      method: 'POST',
      url: '/admin/v0/groups/grp-1/members',
      headers: c.auth,
      payload: { user: { profile_id: profileId } },
    });
    const event = await t.request({
      method: 'POST',
      url: '/admin/v0/calendar_events',
      headers: c.auth,
      payload: { title: 'Meetup', start_date: '2026-12-01T18:00:00Z' },
    });
    const eventId = event.json<{ data: { id: string } }>().data.id;
    const attendee = await t.request({
      method: 'PATCH',
      url: `/admin/v0/calendar_events/${eventId}/attendees`,
      headers: c.auth,
      payload: { user: { chat_user_id: 'U0ADA' } },
    });
    assert.equal(attendee.statusCode, 200, attendee.body);
    const award = await createAward({ database: t.database, clock: t.clock, communityId: c.id }, { name: 'Helper' });
    const assign = await t.request({
      method: 'POST',
      url: `/admin/v0/awards/${award.id}/assign`,
      headers: c.auth,
      payload: { recipient: { profile_id: profileId } },
    });
    assert.equal(assign.statusCode, 200, assign.body);

    const records = await changes(t, c.auth);
    assert.deepEqual(
      records.map((r) => r.action),
      [
        'import.completed',
        'member.created',
        'member.updated',
        'group.member_added',
        'calendar_event.created',
        'calendar_event.attendees_updated',
        'award.created',
        'award.assigned',
      ],
    );
    const byAction = new Map(records.map((r) => [r.action, r]));
    assert.deepEqual(byAction.get('member.updated')?.changes, { full_name: ['Grace Hopper', 'Grace B. Hopper'] });
    assert.deepEqual(byAction.get('group.member_added')?.target, { type: 'group', id: 'grp-1', name: null });
    assert.equal(byAction.get('group.member_added')?.metadata?.profile_id, profileId);
    assert.deepEqual(byAction.get('award.assigned')?.target, { type: 'award', id: award.id, name: 'Helper' });
    assert.equal(byAction.get('award.assigned')?.metadata?.recipient_profile_id, profileId);
    assert.equal(byAction.get('award.created')?.actor.type, 'system', 'a command called without an actor is the server itself');
  });

  it('a refused request, a failed one and an idempotent replay record nothing', async () => {
    const t = ctx();
    const c = await community();
    const before = (await list(t, c.auth)).total_records;
    const refused = await t.request({ method: 'POST', url: '/admin/v0/calendar_events', headers: c.auth, payload: { title: 'No date' } });
    assert.equal(refused.statusCode, 400);
    const unknownRef = await t.request({
      method: 'POST',
      url: '/admin/v0/calendar_events',
      headers: c.auth,
      payload: { title: 'Bad host', start_date: '2026-12-01T18:00:00Z', hosts: [{ profile_id: randomUUID() }] },
    });
    assert.equal(unknownRef.statusCode, 400, 'refused inside the transaction, after other statements ran');
    const missing = await t.request({ method: 'DELETE', url: `/admin/v0/calendar_events/nope`, headers: c.auth });
    assert.equal(missing.statusCode, 404);
    assert.equal((await list(t, c.auth)).total_records, before);

    const key = randomUUID();
    const send = () =>
      t.request({
        method: 'POST',
        url: '/admin/v0/members',
        headers: { ...c.auth, 'idempotency-key': key },
        payload: { email: 'once@example.com', full_name: 'Once' },
      });
    assert.equal((await send()).statusCode, 201);
    const replay = await send();
    assert.equal(replay.statusCode, 201);
    assert.equal(replay.headers['x-idempotent-replayed'], 'true');
    assert.equal((await list(t, c.auth)).total_records, before + 1);
  });

  it('records the operator commands on API keys and the console of a key: created, rotated, permissions changed, revoked', async () => {
    const t = ctx();
    const c = await community();
    const actor = { type: 'cli' as const, id: null, label: 'operator' };
    const deps = { database: t.database, clock: t.clock, actor };
    const key = await createApiKey({ ...deps, communityId: c.id }, { label: 'reporting', permissions: new Set(['feeds:read'] as const) });
    await rotateApiKey(deps, { keyId: key.id, graceMs: durationMs(1000) });
    await setApiKeyPermissions(deps, { keyId: key.id, permissions: 'all' });
    await revokeApiKey(deps, key.id);
    await revokeApiKey(deps, key.id);
    const records = (await changes(t, c.auth)).filter((r) => r.target.type === 'api_key');
    assert.deepEqual(
      records.map((r) => r.action),
      ['api_key.created', 'api_key.rotated', 'api_key.permissions_changed', 'api_key.revoked'],
    );
    for (const record of records) assert.deepEqual(record.actor, actor);
    assert.deepEqual(records[2]?.changes, { permissions: [['feeds:read'], 'all'] });
    assert.ok(!JSON.stringify(records).includes(key.key), 'never the secret');
  });

  it('filters by action (exact or family), actor, target and time, pages newest first with exact totals, and names a bad parameter', async () => {
    const t = ctx();
    const c = await community();
    for (const title of ['A', 'B', 'C']) {
      await t.request({
        method: 'POST',
        url: '/admin/v0/calendar_events',
        headers: c.auth,
        payload: { title, start_date: '2026-12-01T18:00:00Z' },
      });
      t.clock.advance(60_000);
    }
    await t.request({ method: 'POST', url: '/admin/v0/members', headers: c.auth, payload: { email: 'm@example.com', full_name: 'M' } });
    const family = await list(t, c.auth, '?action=calendar_event.*&per_page=2');
    assert.equal(family.total_records, 3);
    assert.deepEqual(
      family.records.map((r) => r.target.name),
      ['C', 'B'],
    );
    assert.equal(family.has_next, true);
    assert.equal((await list(t, c.auth, '?action=member.created')).total_records, 1);
    // A total counted once is kept up to date with what is appended after it.
    await t.request({
      method: 'POST',
      url: '/admin/v0/calendar_events',
      headers: c.auth,
      payload: { title: 'D', start_date: '2026-12-01T18:00:00Z' },
    });
    assert.equal((await list(t, c.auth, '?action=calendar_event.*&per_page=2')).total_records, 4);
    await t.request({ method: 'DELETE', url: `/admin/v0/calendar_events/${family.records[0]?.target.id}`, headers: c.auth });
    assert.equal((await list(t, c.auth, '?action=calendar_event.*&per_page=2')).total_records, 5);
    assert.equal((await list(t, c.auth, `?actor_type=api_key&actor_id=${c.keyId}`)).total_records, 6);
    const first = family.records[1] as Activity;
    assert.equal((await list(t, c.auth, `?target_type=calendar_event&target_id=${first.target.id}`)).total_records, 1);
    assert.equal((await list(t, c.auth, '?action=calendar_event.created&since=2026-11-21T12:01:00Z')).total_records, 3);
    assert.equal((await list(t, c.auth, '?action=calendar_event.created&until=2026-11-21T12:01:00Z')).total_records, 1);
    for (const [query, parameter] of [
      ['?action=calendar_event.exploded', 'action'],
      ['?actor_type=robot', 'actor_type'],
      ['?since=yesterday', 'since'],
      ['?per_page=0', 'per_page'],
    ] as const) {
      const res = await t.request({ method: 'GET', url: `/admin/v0/activities${query}`, headers: c.auth });
      assert.equal(res.statusCode, 400, query);
      assert.match(res.json<{ error: { message: string } }>().error.message, new RegExp(parameter), query);
    }
  });

  it('shows a community only its own records; needs activities:read, which keys made without --permissions hold, on every plan', async () => {
    const t = ctx();
    const a = await community('free');
    const b = await community('free');
    await t.request({
      method: 'POST',
      url: '/admin/v0/calendar_events',
      headers: a.auth,
      payload: { title: 'A', start_date: '2026-12-01T18:00:00Z' },
    });
    assert.equal((await list(t, a.auth, '?action=calendar_event.created')).total_records, 1);
    assert.equal((await list(t, b.auth, '?action=calendar_event.created')).total_records, 0);
    const scoped = await createApiKey(
      { database: t.database, clock: t.clock, communityId: a.id },
      { label: 'events', permissions: new Set(['calendar_events:read'] as const) },
    );
    const refused = await t.request({ method: 'GET', url: '/admin/v0/activities', headers: { authorization: `Bearer ${scoped.key}` } });
    assert.equal(refused.statusCode, 403);
  });

  it('verify finds an edited record and a deleted one, and a deleted last record', async () => {
    const t = ctx();
    const c = await community();
    for (const title of ['A', 'B', 'C', 'D'])
      await t.request({
        method: 'POST',
        url: '/admin/v0/calendar_events',
        headers: c.auth,
        payload: { title, start_date: '2026-12-01T18:00:00Z' },
      });
    const db = t.database.db;
    assert.equal((await verifyChain(db, c.id)).ok, true);
    const rows = (
      await sql<{
        seq: number;
        id: string;
        target_name: string;
      }>`select seq, id, target_name from activities where community_id = ${c.id} order by seq`.execute(db)
    ).rows;
    const b = rows.find((r) => r.target_name === 'B') as { seq: number; id: string };
    await sql`update activities set target_name = 'Bee' where community_id = ${c.id} and id = ${b.id}`.execute(db);
    const edited = await verifyChain(db, c.id);
    assert.equal(edited.ok, false);
    assert.equal(edited.problem?.id, b.id);
    assert.match(edited.problem?.reason ?? '', /changed/);
    await sql`update activities set target_name = 'B' where community_id = ${c.id} and id = ${b.id}`.execute(db);
    assert.equal((await verifyChain(db, c.id)).ok, true);
    await sql`delete from activities where community_id = ${c.id} and id = ${b.id}`.execute(db);
    const deleted = await verifyChain(db, c.id);
    assert.equal(deleted.ok, false);
    const next = rows.find((r) => Number(r.seq) === Number(b.seq) + 1) as { id: string };
    assert.equal(deleted.problem?.id, next.id, 'the record after the deleted one is named');
    assert.match(deleted.problem?.reason ?? '', /missing/);

    const other = await community();
    await t.request({
      method: 'POST',
      url: '/admin/v0/calendar_events',
      headers: other.auth,
      payload: { title: 'Z', start_date: '2026-12-01T18:00:00Z' },
    });
    await sql`delete from activities where community_id = ${other.id} and seq = (select max(seq) from activities where community_id = ${other.id})`.execute(
      db,
    );
    const tail = await verifyChain(db, other.id);
    assert.equal(tail.ok, false);
    assert.match(tail.problem?.reason ?? '', /last record/);
  });

  it('retention removes the oldest records in batches, the chain still verifies, and 0 keeps everything', async () => {
    const t = ctx();
    const c = await community();
    for (let i = 0; i < 5; i++) {
      await t.request({
        method: 'POST',
        url: '/admin/v0/members',
        headers: c.auth,
        payload: { email: `m${i}@example.com`, full_name: `M ${i}` },
      });
      t.clock.advance(24 * 60 * 60 * 1000);
    }
    const total = (await list(t, c.auth)).total_records;
    const log = { error: () => {}, info: () => {} };
    assert.equal(await new ActivityRetentionWorker({ database: t.database, clock: t.clock, retentionDays: 0, log }).pass(), 0);
    // Records older than 3 days: the key's, the import's and the first two members'.
    // (other communities of this database are pruned by the same pass)
    assert.ok((await new ActivityRetentionWorker({ database: t.database, clock: t.clock, retentionDays: 3, log }).pass()) >= 4);
    assert.equal((await list(t, c.auth)).total_records, total - 4);
    const verdict = await verifyChain(t.database.db, c.id);
    assert.equal(verdict.ok, true, JSON.stringify(verdict.problem));
    assert.equal(verdict.records, total - 4);
  });

  it("the export carries the log and the import loads it unchanged before the new community's own, where the chain verifies", async () => {
    const t = ctx();
    const c = await community();
    await t.request({ method: 'POST', url: '/admin/v0/members', headers: c.auth, payload: { email: 'x@example.com', full_name: 'X' } });
    const exported = await exportText(t.database, c.id);
    const source = (JSON.parse(exported) as { activities: Json[] }).activities;
    const copy = await createCommunity({ database: t.database, clock: t.clock }, { name: 'Copy', plan: 'enterprise' });
    await importText(t.database, t.clock, copy.id, exported);
    const copied = (JSON.parse(await exportText(t.database, copy.id)) as { activities: Json[] }).activities;
    assert.deepEqual(copied.slice(0, source.length), source, 'the log unchanged, first');
    assert.deepEqual(
      copied.slice(source.length).map((r) => r.action),
      ['import.completed'],
      "then the import's own",
    );
    const verdict = await verifyChain(t.database.db, copy.id);
    assert.equal(verdict.ok, true, JSON.stringify(verdict.problem));
    assert.equal(verdict.records, copied.length);
    // The same file again adds only its own import.completed.
    await importText(t.database, t.clock, copy.id, exported);
    assert.equal((await verifyChain(t.database.db, copy.id)).records, copied.length + 1);

    // Into a community with records of its own: the imported log goes before them, and all of it verifies.
    const used = await t.community();
    await importText(t.database, t.clock, used.id, exported);
    const mixed = await verifyChain(t.database.db, used.id);
    assert.equal(mixed.ok, true, JSON.stringify(mixed.problem));
    assert.equal(mixed.records, source.length + 2, "the imported log, the community's key, the import");
    assert.equal(mixed.segments, 2);
    assert.ok((mixed.first_seq ?? 1) <= 0, 'placed below the seqs the community had');

    const tampered = JSON.parse(exported) as { activities: Json[] };
    (tampered.activities[1] as { target: Json }).target.name = 'someone else';
    const other = await createCommunity({ database: t.database, clock: t.clock }, { name: 'Other', plan: 'enterprise' });
    await assert.rejects(
      () => runImport({ database: t.database, clock: t.clock, communityId: other.id }, tampered),
      /activities\[1\]\.hash/,
    );
  });
});
