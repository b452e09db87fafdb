import assert from 'node:assert/strict';
import { it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { runImport } from '../../src/import/run-import.js';
import { describeEachEngine, testConfig } from '../support/harness.js';

const hour = 3_600_000;

interface Page {
  data: { total_records: number; total_pages: number; count: number; records: { id: string }[] };
}

describeEachEngine('exact totals under the count cache', (ctx) => {
  const event = (id: string, startOffsetHours: number, durationHours: number) => {
    const start = ctx().clock.now() + startOffsetHours * hour;
    return {
      id,
      title: `Event ${id}`,
      status: 'published',
      start_date: new Date(start).toISOString(),
      end_date: new Date(start + durationHours * hour).toISOString(),
    };
  };

  it('keeps event totals exact after imports, deletes and the clock passing an event end', async () => {
    const community = await ctx().community();
    const base = ctx().clock.now();
    await runImport(
      { database: ctx().database, clock: ctx().clock, communityId: community.id },
      {
        calendar_events: [
          event('aaaaaaaaaaa1', 1, 1),
          event('aaaaaaaaaaa2', 3, 1),
          event('aaaaaaaaaaa3', 5, 1),
          event('aaaaaaaaaaa4', -5, 1),
        ],
      },
    );
    // Without an argument: the upcoming list, the one whose total moves with the clock.
    const totals = async (query = '&time_filter=upcoming') => {
      const res = await ctx().request({ method: 'GET', url: `/admin/v0/calendar_events?per_page=1${query}`, headers: community.auth });
      assert.equal(res.statusCode, 200, res.body);
      return res.json<Page>().data.total_records;
    };
    assert.equal(await totals(), 3);
    assert.equal(await totals('&time_filter=past'), 1);
    assert.equal(await totals('&time_filter=all'), 4);
    assert.equal(await totals(), 3, 'served again (from the cache): still exact');

    // aaaaaaaaaaa1 ends at base + 2h: one ms later it is past.
    ctx().clock.set(base + 2 * hour);
    assert.equal(await totals(), 3, 'an event ending exactly now is still upcoming');
    ctx().clock.set(base + 2 * hour + 1);
    assert.equal(await totals(), 2);
    assert.equal(await totals('&time_filter=past'), 2);

    await runImport(
      { database: ctx().database, clock: ctx().clock, communityId: community.id },
      { calendar_events: [event('aaaaaaaaaaa5', 10, 1)] },
    );
    assert.equal(await totals(), 3);
    assert.equal(await totals('&time_filter=all'), 5);

    const deleted = await ctx().request({ method: 'DELETE', url: '/admin/v0/calendar_events/aaaaaaaaaaa3', headers: community.auth });
    assert.equal(deleted.statusCode, 200);
    assert.equal(await totals(), 2);
    assert.equal(await totals('&time_filter=all'), 4);

    // An explicit reference date is not relative to the clock.
    const ref = encodeURIComponent(new Date(base).toISOString());
    assert.equal(await totals(`&time_filter=upcoming&reference_date=${ref}`), 3);
  });

  it('sees writes made through another instance sharing the database', async () => {
    const community = await ctx().community();
    await runImport(
      { database: ctx().database, clock: ctx().clock, communityId: community.id },
      {
        calendar_events: [event('bbbbbbbbbbb1', 1, 1), event('bbbbbbbbbbb2', 2, 1)],
      },
    );
    const other = await buildApp({ config: testConfig(), database: ctx().database, clock: ctx().clock, logger: false });
    try {
      const total = async () =>
        (await ctx().request({ method: 'GET', url: '/admin/v0/calendar_events', headers: community.auth })).json<Page>().data.total_records;
      assert.equal(await total(), 2);
      const res = await other.inject({ method: 'DELETE', url: '/admin/v0/calendar_events/bbbbbbbbbbb1', headers: community.auth });
      assert.equal(res.statusCode, 200);
      assert.equal(await total(), 1);
    } finally {
      await other.close();
    }
  });

  it('keeps post totals exact across imports, for a feed and for home', async () => {
    const community = await ctx().community();
    const feedId = '33333333-3333-4333-8333-333333333333';
    const hiddenFeedId = '44444444-4444-4444-8444-444444444444';
    const profile = { profile_id: '55555555-5555-4555-8555-555555555555', email: 'author@example.com' };
    const post = (id: string, feed: string) => ({ id, feed_id: feed, author_profile_id: profile.profile_id, title: id });
    await runImport(
      { database: ctx().database, clock: ctx().clock, communityId: community.id },
      {
        profiles: [profile],
        feeds: [
          { id: feedId, label: 'Open' },
          { id: hiddenFeedId, label: 'Hidden', is_unlisted: true },
        ],
        posts: [post('p1', feedId), post('p2', feedId), post('p3', hiddenFeedId)],
      },
    );
    const total = async (feed: string) =>
      (await ctx().request({ method: 'GET', url: `/admin/v0/feeds/${feed}/posts`, headers: community.auth })).json<Page>().data
        .total_records;
    assert.equal(await total(feedId), 2);
    assert.equal(await total('home'), 2);
    await runImport({ database: ctx().database, clock: ctx().clock, communityId: community.id }, { posts: [post('p4', feedId)] });
    assert.equal(await total(feedId), 3);
    assert.equal(await total('home'), 3);
    await runImport(
      { database: ctx().database, clock: ctx().clock, communityId: community.id },
      { feeds: [{ id: hiddenFeedId, label: 'Hidden', is_unlisted: false }] },
    );
    assert.equal(await total('home'), 4);
  });
});
