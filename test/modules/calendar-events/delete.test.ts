import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it } from 'node:test';
import { describeEachEngine, type TestApp } from '../../support/harness.js';
import { type Envelope, event, eventId, feed, idsOf, importInto, listEvents, profile, uuid } from './fixtures.js';

const del = (app: TestApp, id: string, headers: Record<string, string>) =>
  app.request({ method: 'DELETE', url: `/admin/v0/calendar_events/${id}`, headers });

/** Rows left in each child table for the event (read-only checks of what the API cannot show). */
async function childRowCounts(app: TestApp, communityId: string, id: string): Promise<number[]> {
  const counts: number[] = [];
  for (const table of ['calendar_event_tags', 'calendar_event_feeds', 'calendar_event_people', 'calendar_event_attendees'] as const) {
    const row = await app.database.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('community_id', '=', communityId)
      .where('event_id', '=', id)
      .executeTakeFirstOrThrow();
    counts.push(Number(row.n));
  }
  return counts;
}

async function eventsVersion(app: TestApp, communityId: string): Promise<number> {
  const row = await app.database.db
    .selectFrom('communities')
    .select('events_version')
    .where('id', '=', communityId)
    .executeTakeFirstOrThrow();
  return Number(row.events_version);
}

describeEachEngine('calendar events: delete', (ctx) => {
  const seeded = async () => {
    const community = await ctx().community();
    await importInto(ctx(), community.id, {
      profiles: [profile(1), profile(2)],
      feeds: [feed(1)],
      calendar_events: [
        event(1, '2026-12-01T10:00:00Z', 60_000, {
          tags: [{ id: 't1' }],
          published_to: [{ feed_id: uuid(1, 2) }],
          host_profile_ids: [uuid(1, 1)],
          speaker_profile_ids: [uuid(2, 1)],
          attendees: [{ profile_id: uuid(1, 1) }, { profile_id: uuid(2, 1) }],
        }),
        event(2, '2026-12-02T10:00:00Z', 60_000, { tags: [{ id: 't1' }] }),
      ],
    });
    return community;
  };

  it('deletes the event: 200 with its id, then gone from get and list', async () => {
    const community = await seeded();
    const res = await del(ctx(), eventId(1), community.auth);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { success: true, data: { id: eventId(1) } });
    const get = await ctx().request({ method: 'GET', url: `/admin/v0/calendar_events/${eventId(1)}`, headers: community.auth });
    assert.equal(get.statusCode, 404);
    assert.deepEqual(idsOf((await listEvents(ctx(), community.auth, 'time_filter=all')).body), [eventId(2)]);
    assert.deepEqual(idsOf((await listEvents(ctx(), community.auth, 'tag_ids=t1')).body), [eventId(2)]);
    assert.deepEqual(idsOf((await listEvents(ctx(), community.auth, `feed_id=${uuid(1, 2)}`)).body), []);
  });

  it('removes its tag, feed, host/speaker and attendee rows, and only its own', async () => {
    const community = await seeded();
    assert.deepEqual(await childRowCounts(ctx(), community.id, eventId(1)), [1, 1, 2, 2]);
    await del(ctx(), eventId(1), community.auth);
    assert.deepEqual(await childRowCounts(ctx(), community.id, eventId(1)), [0, 0, 0, 0]);
    assert.deepEqual(await childRowCounts(ctx(), community.id, eventId(2)), [1, 0, 0, 0]);
  });

  it('bumps events_version so that cached totals are invalidated', async () => {
    const community = await seeded();
    const before = await eventsVersion(ctx(), community.id);
    await del(ctx(), eventId(2), community.auth);
    assert.equal(await eventsVersion(ctx(), community.id), before + 1);
  });

  it('answers 404 for an unknown or already deleted event, and changes nothing', async () => {
    const community = await seeded();
    assert.equal((await del(ctx(), eventId(1), community.auth)).statusCode, 200);
    const version = await eventsVersion(ctx(), community.id);
    const again = await del(ctx(), eventId(1), community.auth);
    assert.equal(again.statusCode, 404);
    assert.equal(again.json<Envelope<unknown>>().error?.code, 'not_found');
    assert.equal((await del(ctx(), 'x', community.auth)).statusCode, 404, 'any non-empty id is looked up');
    assert.equal(await eventsVersion(ctx(), community.id), version);
  });

  it("answers 404 for another community's event and leaves it in place", async () => {
    const owner = await seeded();
    const stranger = await ctx().community();
    const res = await del(ctx(), eventId(1), stranger.auth);
    assert.equal(res.statusCode, 404);
    const get = await ctx().request({ method: 'GET', url: `/admin/v0/calendar_events/${eventId(1)}`, headers: owner.auth });
    assert.equal(get.statusCode, 200);
    assert.deepEqual(await childRowCounts(ctx(), owner.id, eventId(1)), [1, 1, 2, 2]);
  });

  it('accepts an Idempotency-Key header', async () => {
    const community = await seeded();
    const res = await del(ctx(), eventId(2), { ...community.auth, 'idempotency-key': randomUUID() });
    assert.equal(res.statusCode, 200);
  });

  it('answers 401 without a key', async () => {
    assert.equal((await ctx().request({ method: 'DELETE', url: `/admin/v0/calendar_events/${eventId(1)}` })).statusCode, 401);
  });
});
