import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { CountCache } from '../../../src/caching/count-cache.js';
import { ResponseCache } from '../../../src/caching/response-cache.js';
import { describeEachEngine } from '../../support/harness.js';
import { day, event, eventId, hour, idsOf, importInto, listEvents } from './fixtures.js';

/*
 * Issue 17: `time_filter` omitted means `all` (decisions.md), and that default is no slow path:
 * without reference_date its answer and its total do not depend on the clock, so both are served
 * from the response cache and the count cache until the community's events change.
 */
const responses = new ResponseCache(8 * 1024 * 1024);
const counts = new CountCache();

describeEachEngine(
  'calendar events: time_filter defaults to all, cached like upcoming',
  (ctx) => {
    let auth: { authorization: string };
    const now = () => ctx().clock.now();

    before(async () => {
      const community = await ctx().community();
      auth = community.auth;
      const at = (offset: number) => new Date(now() + offset).toISOString();
      await importInto(ctx(), community.id, {
        calendar_events: [
          event(1, at(-2 * day), hour),
          event(2, at(-hour), 2 * hour), // under way: ends in an hour
          event(3, at(day), hour),
          event(4, at(2 * day), null),
          { ...event(5, at(3 * day), hour), status: 'draft' },
        ],
      });
    });

    it('answers past and upcoming published events, by start, when time_filter is omitted', async () => {
      const { status, body } = await listEvents(ctx(), auth);
      assert.equal(status, 200);
      assert.deepEqual(idsOf(body), [eventId(1), eventId(2), eventId(3), eventId(4)]);
      assert.equal(body.data.total_records, 4);
      const all = await listEvents(ctx(), auth, 'time_filter=all');
      assert.deepEqual(all.body, body);
      const upcoming = await listEvents(ctx(), auth, 'time_filter=upcoming');
      assert.deepEqual(idsOf(upcoming.body), [eventId(2), eventId(3), eventId(4)]);
    });

    it('serves the default list from the response cache while the clock moves on', async () => {
      await listEvents(ctx(), auth, 'per_page=2');
      const before = { hits: responses.hits, misses: responses.misses };
      for (const step of [1, 60_000, 3 * day]) {
        ctx().clock.advance(step);
        const { body } = await listEvents(ctx(), auth, 'per_page=2');
        assert.deepEqual(idsOf(body), [eventId(1), eventId(2)]);
      }
      assert.equal(responses.misses, before.misses, 'no answer rendered again');
      assert.equal(responses.hits, before.hits + 3);
    });

    it('reuses the total of the default list from the count cache while the clock moves on', async () => {
      await listEvents(ctx(), auth, 'per_page=3');
      const before = { hits: counts.hits, misses: counts.misses };
      ctx().clock.advance(60_000);
      // Another page: a new answer to render, but the same filter, so the same total.
      const { body } = await listEvents(ctx(), auth, 'per_page=3&page=1');
      assert.equal(body.data.total_records, 4);
      assert.equal(counts.misses, before.misses, 'no COUNT(*) again');
      assert.equal(counts.hits, before.hits + 1);
    });
  },
  { services: { responses, counts } },
);
