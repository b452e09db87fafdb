import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeEachEngine } from '../../support/harness.js';
import { day, event, eventId, feed, hour, idsOf, importInto, listEvents, profile, uuid } from './fixtures.js';

// The harness clock starts at 2026-11-21T12:00:00.000Z: that is "now" for every default below.
const e = eventId;
const tag = (id: string) => ({ id, label: `Tag ${id}`, tag_group_id: 'g1' });
const feed1 = uuid(1, 2);
const feed2 = uuid(2, 2);

const events = [
  event(1, '2026-11-20T10:00:00Z', hour),
  event(2, '2026-11-21T11:00:00Z', 2 * hour),
  event(3, '2026-11-22T09:00:00Z', hour, { publish_to_site: true, tags: [tag('t1')], published_to: [{ feed_id: feed1 }] }),
  event(4, '2026-11-23T09:00:00Z', null, { publish_to_site: true, is_unlisted: true, tags: [tag('t2')] }),
  event(5, '2026-11-19T09:00:00Z', null),
  event(6, '2026-11-24T09:00:00Z', hour, { status: 'draft' }),
  event(7, '2026-11-24T09:00:00Z', hour, { status: 'needs_approval' }),
  event(8, '2026-11-22T09:00:00Z', hour, { is_unlisted: true }),
  event(9, '2026-11-25T20:00:00Z', day + 6 * hour, {
    tags: [tag('t1'), tag('t3')],
    published_to: [{ feed_id: feed1 }, { feed_id: feed2, chat_channel_id: 'C2' }],
  }),
  event(10, '2026-11-21T12:00:00Z', null),
  event(11, '2026-11-21T11:00:00Z', hour),
  event(12, '2026-11-21T10:59:59.999Z', hour),
  event(13, '2026-11-27T23:00:00Z', hour),
];

describeEachEngine('calendar events: list filters, defaults and sorts', (ctx) => {
  let auth: { authorization: string };
  const ids = async (query: string) => {
    const { status, body } = await listEvents(ctx(), auth, `${query}&per_page=50`);
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.data.total_records, body.data.records.length, 'total_records counts exactly the matching records');
    return idsOf(body);
  };

  before(async () => {
    const community = await ctx().community();
    auth = community.auth;
    await importInto(ctx(), community.id, { profiles: [profile(1)], feeds: [feed(1), feed(2)], calendar_events: events });
  });

  it('defaults to every published event, past and upcoming (time_filter all), by start then id, page 0 of 10', async () => {
    const { status, body } = await listEvents(ctx(), auth);
    assert.equal(status, 200);
    assert.equal(body.success, true);
    assert.deepEqual(idsOf(body), [e(5), e(1), e(12), e(2), e(11), e(10), e(3), e(8), e(4), e(9)]);
    assert.equal(body.data.page, 0);
    assert.equal(body.data.per_page, 10);
    assert.equal(body.data.count, 10);
    assert.equal(body.data.total_records, 11);
    assert.equal(body.data.total_pages, 2);
    assert.equal(body.data.has_next, true);
  });

  it('counts an event ending exactly at the reference instant (or starting then, without end) as upcoming', async () => {
    const upcoming = await ids('time_filter=upcoming');
    assert.ok(upcoming.includes(e(11)) && upcoming.includes(e(10)));
    assert.ok(!upcoming.includes(e(12)), 'ended one millisecond before now');
  });

  it('past: ended before the reference instant, newest start first', async () => {
    assert.deepEqual(await ids('time_filter=past'), [e(12), e(1), e(5)]);
  });

  it('all: every published event by start ascending, ties by id', async () => {
    assert.deepEqual(await ids('time_filter=all'), [e(5), e(1), e(12), e(2), e(11), e(10), e(3), e(8), e(4), e(9), e(13)]);
  });

  it('status selects draft or needs_approval events instead of published ones', async () => {
    assert.deepEqual(await ids('status=draft'), [e(6)]);
    assert.deepEqual(await ids('status=needs_approval&time_filter=all'), [e(7)]);
    assert.deepEqual(await ids('status=published&time_filter=past'), [e(12), e(1), e(5)]);
  });

  it('reference_date moves the split between upcoming and past; past ties break by id descending', async () => {
    assert.deepEqual(await ids('time_filter=upcoming&reference_date=2026-11-22T10:00:00Z'), [e(3), e(8), e(4), e(9), e(13)]);
    assert.deepEqual(await ids('reference_date=2026-11-22T10:00:00Z&time_filter=past'), [e(10), e(11), e(2), e(12), e(1), e(5)]);
    assert.deepEqual(
      await ids(`reference_date=${encodeURIComponent('2026-11-22T11:00:00+01:00')}&time_filter=past`),
      await ids('reference_date=2026-11-22T10:00:00Z&time_filter=past'),
    );
  });

  it('reference_date defaults to the clock, not to a fixed instant', async () => {
    ctx().clock.set('2026-11-26T00:00:00Z');
    try {
      assert.deepEqual(await ids('time_filter=upcoming'), [e(9), e(13)]);
    } finally {
      ctx().clock.set('2026-11-21T12:00:00Z');
    }
  });

  it('date_filter keeps events overlapping the UTC day of the instant', async () => {
    assert.deepEqual(await ids('time_filter=all&date_filter=2026-11-26T15:00:00Z'), [e(9)], 'inside a multi-day event');
    assert.deepEqual(await ids('time_filter=all&date_filter=2026-11-21T00:00:00Z'), [e(12), e(2), e(11), e(10)]);
    assert.deepEqual(
      await ids(`time_filter=all&date_filter=${encodeURIComponent('2026-11-22T01:00:00+02:00')}`),
      [e(12), e(2), e(11), e(10)],
      'the UTC day of the instant',
    );
    assert.deepEqual(await ids('time_filter=all&date_filter=2026-11-27T23:59:59.999Z'), [e(9), e(13)]);
    assert.deepEqual(
      await ids('time_filter=all&date_filter=2026-11-28T08:00:00Z'),
      [],
      'an event ending at midnight belongs to the day before',
    );
    assert.deepEqual(await ids('time_filter=all&date_filter=2026-11-19T08:00:00Z'), [e(5)], 'an event without end overlaps its start day');
  });

  it('date_filter combines with time_filter; alone, it keeps the whole day (time_filter all)', async () => {
    assert.deepEqual(await ids('date_filter=2026-11-21T23:00:00Z&time_filter=upcoming'), [e(2), e(11), e(10)]);
    assert.deepEqual(await ids('date_filter=2026-11-21T23:00:00Z'), [e(12), e(2), e(11), e(10)]);
    assert.deepEqual(await ids('date_filter=2026-11-21T23:00:00Z&time_filter=past'), [e(12)]);
  });

  it('published_to_site filters on publish_to_site', async () => {
    assert.deepEqual(await ids('time_filter=upcoming&published_to_site=true'), [e(3), e(4)]);
    assert.deepEqual(await ids('time_filter=upcoming&published_to_site=false'), [e(2), e(11), e(10), e(8), e(9), e(13)]);
  });

  it('is_unlisted filters on is_unlisted', async () => {
    assert.deepEqual(await ids('time_filter=upcoming&is_unlisted=true'), [e(8), e(4)]);
    assert.deepEqual(await ids('time_filter=upcoming&is_unlisted=false'), [e(2), e(11), e(10), e(3), e(9), e(13)]);
  });

  it('feed_id keeps events published to that feed (any letter case)', async () => {
    assert.deepEqual(await ids(`feed_id=${feed1}`), [e(3), e(9)]);
    assert.deepEqual(await ids(`feed_id=${feed2.toUpperCase()}`), [e(9)]);
    assert.deepEqual(await ids(`feed_id=${uuid(99, 2)}`), []);
  });

  it('tag_ids keeps events having any of the comma-separated tags, each once', async () => {
    assert.deepEqual(await ids('tag_ids=t1'), [e(3), e(9)]);
    assert.deepEqual(await ids('tag_ids=t2,t3'), [e(4), e(9)]);
    assert.deepEqual(await ids('tag_ids=t1,t3'), [e(3), e(9)]);
    assert.deepEqual(await ids(`tag_ids=${encodeURIComponent(' t2 , nope')}`), [e(4)]);
    assert.deepEqual(await ids('tag_ids=T1'), [], 'tag ids are case-sensitive');
  });

  it('combines every filter with AND', async () => {
    assert.deepEqual(await ids('published_to_site=true&is_unlisted=false&tag_ids=t1'), [e(3)]);
    assert.deepEqual(await ids(`time_filter=all&feed_id=${feed1}&tag_ids=t3`), [e(9)]);
    assert.deepEqual(await ids(`time_filter=past&feed_id=${feed1}`), []);
    assert.deepEqual(await ids('status=draft&time_filter=all&published_to_site=false&is_unlisted=false'), [e(6)]);
    assert.deepEqual(
      await ids(
        `reference_date=2026-11-22T10:00:00Z&date_filter=2026-11-22T00:00:00Z&feed_id=${feed1}&tag_ids=t1,t2&published_to_site=true&is_unlisted=false`,
      ),
      [e(3)],
    );
  });

  it('never shows the events of another community', async () => {
    const other = await ctx().community();
    await importInto(ctx(), other.id, { calendar_events: [event(50, '2026-12-01T10:00:00Z'), event(1, '2026-12-02T10:00:00Z')] });
    assert.deepEqual(idsOf((await listEvents(ctx(), other.auth, 'per_page=50')).body), [e(50), e(1)]);
    const mine = await ids('time_filter=all');
    assert.ok(!mine.includes(e(50)));
    assert.equal(mine.length, 11);
    assert.deepEqual(idsOf((await listEvents(ctx(), other.auth, `feed_id=${feed1}`)).body), []);
  });
});
