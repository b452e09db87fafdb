// Tenant isolation: a key of community A can neither read, change, replay, nor learn the existence
// of community B's data. Every operation that takes an id (path or body) is asked for one of B's ids
// and for an id that exists nowhere; the answers must be the same (status, body modulo the id) and
// take the same time (medians of interleaved runs, see support/timing.ts).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { runImport } from '../../src/import/run-import.js';
import { IdempotencyService } from '../../src/modules/idempotency/idempotency.commands.js';
import { describeEachEngine, type TestApp } from '../support/harness.js';
import { indistinguishable, settledComparison } from './support/timing.js';
import { seedWorld, type World, worldEventId, worldUuid } from './support/world.js';

type Probe = (id: string) => InjectOptions;

const json = (payload: unknown) => ({ payload: JSON.stringify(payload) });

type Request = Omit<InjectOptions, 'headers'> & { headers?: Record<string, string> };

/** The request with the world's key (and the JSON content type when it has a body). */
const as = (world: World, options: Request): InjectOptions => ({
  ...options,
  headers: { ...world.auth, ...(options.payload === undefined ? {} : { 'content-type': 'application/json' }), ...(options.headers ?? {}) },
});

describeEachEngine('tenant isolation', (ctx) => {
  let a: World;
  let b: World;
  let t: TestApp;
  const send = async (options: InjectOptions) => t.request(options);

  before(async () => {
    t = ctx();
    a = await seedWorld(t, 'a');
    b = await seedWorld(t, 'b');
  });

  /** Asserts that A asking for B's id and A asking for a missing id cannot be told apart. */
  async function assertSameAsMissing(label: string, theirs: string, missing: string, probe: Probe, expectedStatus = 404) {
    const forTheirs = await send(probe(theirs));
    const forMissing = await send(probe(missing));
    assert.equal(forTheirs.statusCode, expectedStatus, `${label}: ${forTheirs.body}`);
    assert.equal(forMissing.statusCode, forTheirs.statusCode, label);
    assert.equal(forTheirs.body.replaceAll(theirs, '<id>'), forMissing.body.replaceAll(missing, '<id>'), label);
    const timing = await settledComparison(
      () => send(probe(theirs)),
      () => send(probe(missing)),
    );
    assert.ok(
      indistinguishable(timing),
      `${label}: median ${timing.medianA.toFixed(2)} ms (theirs) vs ${timing.medianB.toFixed(2)} ms (missing)`,
    );
  }

  const withA = (options: Request): InjectOptions => as(a, options);

  it('GET an event of another community: 404 exactly as a missing one', async () => {
    await assertSameAsMissing('get event', b.eventIds[0] as string, worldEventId('c', 1), (id) =>
      withA({ method: 'GET', url: `/admin/v0/calendar_events/${id}` }),
    );
  });

  it('DELETE an event of another community: 404 as a missing one, and the event survives', async () => {
    await assertSameAsMissing('delete event', b.eventIds[1] as string, worldEventId('c', 2), (id) =>
      withA({ method: 'DELETE', url: `/admin/v0/calendar_events/${id}` }),
    );
    const still = await send({ method: 'GET', url: `/admin/v0/calendar_events/${b.eventIds[1]}`, headers: b.auth });
    assert.equal(still.statusCode, 200);
  });

  it('PATCH attendees: another community event, or another community user, is 404 as a missing one; nothing changes', async () => {
    const before = (await send({ method: 'GET', url: `/admin/v0/calendar_events/${b.eventIds[0]}`, headers: b.auth })).json<{
      data: { attendees_count: number };
    }>();
    await assertSameAsMissing('attendee on their event', b.eventIds[0] as string, worldEventId('c', 3), (id) =>
      withA({ method: 'PATCH', url: `/admin/v0/calendar_events/${id}/attendees`, ...json({ user: { chat_user_id: a.chatUserIds[0] } }) }),
    );
    await assertSameAsMissing('their user on our event', b.chatUserIds[0] as string, 'UC0000001', (user) =>
      withA({ method: 'PATCH', url: `/admin/v0/calendar_events/${a.eventIds[0]}/attendees`, ...json({ user: { chat_user_id: user } }) }),
    );
    const after = (await send({ method: 'GET', url: `/admin/v0/calendar_events/${b.eventIds[0]}`, headers: b.auth })).json<{
      data: { attendees_count: number };
    }>();
    assert.equal(after.data.attendees_count, before.data.attendees_count);
  });

  it('deactivate a member of another community: 404 as a missing one (never their 409), and the member stays active', async () => {
    await assertSameAsMissing('deactivate plain member', b.plainMemberIds[0] as string, worldUuid('c', 3, 1), (id) =>
      withA({ method: 'POST', url: `/admin/v0/members/${id}/deactivate` }),
    );
    await assertSameAsMissing('deactivate linked member', b.linkedMemberIds[0] as string, worldUuid('c', 3, 2), (id) =>
      withA({ method: 'POST', url: `/admin/v0/members/${id}/deactivate` }),
    );
    const check = await send(as(b, { method: 'POST', url: '/admin/v0/members/check', ...json({ email: b.memberEmails.at(-2) }) }));
    assert.deepEqual(check.json<{ data: unknown }>().data, { is_member: true, is_deactivated: false, is_forgotten: false });
  });

  it('groups: another community group, or a user of another community by any identifier, is 404 as a missing one', async () => {
    await assertSameAsMissing('their group', b.groupIds[0] as string, 'c-group-1', (id) =>
      withA({ method: 'POST', url: `/admin/v0/groups/${id}/members`, ...json({ user: { chat_user_id: a.chatUserIds[1] } }) }),
    );
    const identifiers: [string, string, string][] = [
      ['chat_user_id', b.chatUserIds[1] as string, 'UC0000009'],
      ['email', b.emails[1] as string, 'person2@c.example.org'],
      ['profile_id', b.profileIds[1] as string, worldUuid('c', 1, 2)],
    ];
    for (const [field, theirs, missing] of identifiers) {
      await assertSameAsMissing(`their user by ${field}`, theirs, missing, (value) =>
        withA({ method: 'POST', url: `/admin/v0/groups/${a.groupIds[0]}/members`, ...json({ user: { [field]: value } }) }),
      );
    }
  });

  it('feeds and posts of another community: 404 as missing ones', async () => {
    await assertSameAsMissing('get feed', b.feedIds[0] as string, worldUuid('c', 2, 1), (id) =>
      withA({ method: 'GET', url: `/admin/v0/feeds/${id}` }),
    );
    await assertSameAsMissing('list posts', b.feedIds[0] as string, worldUuid('c', 2, 1), (id) =>
      withA({ method: 'GET', url: `/admin/v0/feeds/${id}/posts` }),
    );
  });

  it('list filters with ids of another community answer exactly as with missing ids', async () => {
    await assertSameAsMissing(
      'events by feed',
      b.feedIds[0] as string,
      worldUuid('c', 2, 1),
      (id) => withA({ method: 'GET', url: `/admin/v0/calendar_events?time_filter=all&feed_id=${id}` }),
      200,
    );
    await assertSameAsMissing(
      'events by tag',
      b.tagIds[0] as string,
      'c-tag-0',
      (id) => withA({ method: 'GET', url: `/admin/v0/calendar_events?time_filter=all&tag_ids=${id}` }),
      200,
    );
  });

  it('lists hold only the caller community records', async () => {
    const events = await send(withA({ method: 'GET', url: '/admin/v0/calendar_events?time_filter=all&per_page=50' }));
    const ids = events.json<{ data: { records: { id: string }[] } }>().data.records.map((r) => r.id);
    assert.ok(ids.length > 0);
    assert.ok(
      ids.every((id) => id.startsWith('aev')),
      ids.join(','),
    );
    const home = await send(withA({ method: 'GET', url: '/admin/v0/feeds/home/posts?per_page=50' }));
    const posts = home.json<{ data: { records: { id: string; author: { email: string } }[] } }>().data.records;
    assert.ok(posts.length > 0);
    assert.ok(posts.every((p) => p.id.startsWith('a-post-') && p.author.email.endsWith('@a.example.org')));
  });

  it('the same id in two communities reads each community its own record', async () => {
    const shared = 'shared000001';
    const doc = (title: string) => ({ calendar_events: [{ id: shared, title, status: 'published', start_date: '2030-01-01T00:00:00Z' }] });
    await runImport({ database: t.database, clock: t.clock, communityId: a.communityId }, doc('Ours'));
    await runImport({ database: t.database, clock: t.clock, communityId: b.communityId }, doc('Theirs'));
    const ours = await send(withA({ method: 'GET', url: `/admin/v0/calendar_events/${shared}` }));
    assert.equal(ours.json<{ data: { title: string } }>().data.title, 'Ours');
    await send(withA({ method: 'DELETE', url: `/admin/v0/calendar_events/${shared}` }));
    const theirs = await send({ method: 'GET', url: `/admin/v0/calendar_events/${shared}`, headers: b.auth });
    assert.equal(theirs.json<{ data: { title: string } }>().data.title, 'Theirs');
  });

  it('membership check and member add: an email of another community is unknown here', async () => {
    const theirEmail = b.memberEmails[0] as string;
    await assertSameAsMissing(
      'check email',
      theirEmail,
      'nobody@c.example.org',
      (email) => withA({ method: 'POST', url: '/admin/v0/members/check', ...json({ email }) }),
      200,
    );
    const added = await send(
      withA({ method: 'POST', url: '/admin/v0/members', ...json({ email: theirEmail, full_name: 'Someone Else' }) }),
    );
    assert.equal(added.statusCode, 201, added.body);
    const member = added.json<{ data: { member: { id: string; chat_profile_id: string | null } } }>().data.member;
    assert.ok(!b.linkedMemberIds.includes(member.id));
    assert.equal(member.chat_profile_id, null, 'linked to a chat profile of another community');
  });

  it('an Idempotency-Key used by another community never replays, conflicts or counts as reused', async () => {
    const key = randomUUID();
    const body = { email: b.memberEmails[1] };
    const theirs = await send(
      as(b, { method: 'POST', url: '/admin/v0/members/check', headers: { 'idempotency-key': key }, ...json(body) }),
    );
    assert.equal(theirs.json<{ data: { is_member: boolean } }>().data.is_member, true);
    const same = await send(withA({ method: 'POST', url: '/admin/v0/members/check', headers: { 'idempotency-key': key }, ...json(body) }));
    assert.equal(same.statusCode, 200);
    assert.equal(same.headers['x-idempotent-replayed'], undefined);
    assert.equal(same.json<{ data: { is_member: boolean } }>().data.is_member, false, 'got the other community answer');
    const key2 = randomUUID();
    await send(as(b, { method: 'POST', url: '/admin/v0/members/check', headers: { 'idempotency-key': key2 }, ...json(body) }));
    const different = await send(
      withA({
        method: 'POST',
        url: '/admin/v0/members/check',
        headers: { 'idempotency-key': key2 },
        ...json({ email: 'x@c.example.org' }),
      }),
    );
    assert.equal(different.statusCode, 200, 'a key of another community counted as reused');
  });

  it('an Idempotency-Key in flight for another community is free for this one', async () => {
    const service = new IdempotencyService(t.database, t.clock);
    const key = randomUUID();
    assert.equal((await service.claim(b.communityId, key, 'fingerprint')).kind, 'claimed');
    assert.equal((await service.claim(a.communityId, key, 'fingerprint')).kind, 'claimed');
    assert.equal((await service.claim(a.communityId, key, 'fingerprint')).kind, 'in_flight');
  });
});
