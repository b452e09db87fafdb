import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { deepPageRows } from '../../src/db/prepared-query.js';
import { event, eventId, hour, listEvents } from '../modules/calendar-events/fixtures.js';
import { type Auth, feed, feedId, importInto, post, postId, profile, walkPages } from '../support/feed-fixtures.js';
import { describeEachEngine } from '../support/harness.js';

// Enough records that the last pages read more than deepPageRows rows: on PostgreSQL those pages
// read their ids first and fetch only their own rows (prepared-query.ts isDeepPage). Starts and
// creation times tie in groups of 3, and records are imported shuffled, so that only the sort
// (column, then id) can give the expected order, on both kinds of page.
const total = deepPageRows + 61;
const numbers = Array.from({ length: total }, (_, i) => i + 1);
const shuffled = [...numbers].sort((a, b) => ((a * 7919) % 401) - ((b * 7919) % 401));
const upcomingStart = (n: number) => Date.parse('2026-12-01T09:00:00Z') + Math.floor((n - 1) / 3) * hour;
const pastStart = (n: number) => Date.parse('2026-11-01T09:00:00Z') - Math.floor((n - 1) / 3) * hour;
const createdAt = (n: number) => Date.parse('2026-01-01T00:00:00Z') + Math.floor((n - 1) / 3) * 60_000;

const ordered = (ids: (n: number) => string, at: (n: number) => number, direction: 1 | -1, of = numbers) =>
  [...of].sort((a, b) => direction * (at(a) - at(b)) || direction * (ids(a) < ids(b) ? -1 : 1)).map(ids);

describeEachEngine('deep pages read the same records as shallow ones', (ctx) => {
  let auth: Auth;
  const pastIds = (n: number) => eventId(n + 1000);

  before(async () => {
    const community = await ctx().community();
    auth = community.auth;
    await importInto(ctx(), community.id, {
      profiles: [profile(1)],
      feeds: [feed(1)],
      posts: shuffled.map((n) => post(n, 1, { content_created_at: new Date(createdAt(n)).toISOString() })),
      calendar_events: [
        ...shuffled.map((n) => event(n, new Date(upcomingStart(n)).toISOString(), hour)),
        ...shuffled.map((n) => event(n + 1000, new Date(pastStart(n)).toISOString(), hour)),
      ],
    });
  });

  const walkEvents = async (query: string, perPage: number) => {
    const seen: string[] = [];
    for (let page = 0; page < 1000; page++) {
      const { status, body } = await listEvents(ctx(), auth, `${query}&page=${page}&per_page=${perPage}`);
      assert.equal(status, 200);
      seen.push(...body.data.records.map((record) => record.id));
      if (!body.data.has_next) return seen;
    }
    throw new Error('has_next never became false');
  };

  it('upcoming and past events, at page sizes whose last pages are deep', async () => {
    const upcoming = ordered(eventId, upcomingStart, 1);
    const past = ordered(pastIds, pastStart, -1);
    for (const perPage of [7, 50]) {
      assert.deepEqual(await walkEvents('time_filter=upcoming', perPage), upcoming, `upcoming per_page=${perPage}`);
      assert.deepEqual(await walkEvents('time_filter=past', perPage), past, `past per_page=${perPage}`);
    }
  });

  it('a deep page of events alone is the slice of the whole order', async () => {
    const upcoming = ordered(eventId, upcomingStart, 1);
    const { body } = await listEvents(ctx(), auth, 'time_filter=upcoming&page=5&per_page=50');
    assert.deepEqual(
      body.data.records.map((record) => record.id),
      upcoming.slice(250, 300),
    );
  });

  it('Home and feed posts, newest and oldest, at page sizes whose last pages are deep', async () => {
    for (const perPage of [13, 50]) {
      assert.deepEqual(
        await walkPages(ctx(), auth, feedId(1), 'sort=newest', perPage),
        ordered(postId, createdAt, -1),
        `feed newest ${perPage}`,
      );
      assert.deepEqual(
        await walkPages(ctx(), auth, 'home', 'sort=oldest', perPage),
        ordered(postId, createdAt, 1),
        `home oldest ${perPage}`,
      );
    }
  });
});
