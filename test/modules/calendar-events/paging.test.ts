import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeEachEngine } from '../../support/harness.js';
import { event, eventId, hour, idsOf, importInto, listEvents } from './fixtures.js';

// 37 upcoming events in groups of 5 sharing one start (ties everywhere), 12 past ones likewise.
// Ids are imported in a shuffled order so that storage order cannot pass for the sort.
const upcomingNumbers = Array.from({ length: 37 }, (_, i) => i + 1);
const pastNumbers = Array.from({ length: 12 }, (_, i) => i + 101);
const startOf = (n: number) =>
  n > 100
    ? Date.parse('2026-11-10T09:00:00Z') - Math.floor((n - 101) / 5) * hour
    : Date.parse('2026-12-01T09:00:00Z') + Math.floor((n - 1) / 5) * hour;
const shuffled = [...upcomingNumbers, ...pastNumbers].sort((a, b) => ((a * 7919) % 101) - ((b * 7919) % 101));

/** The expected order: start, then id, in the given direction. */
function expectedOrder(numbers: number[], direction: 1 | -1): string[] {
  return [...numbers]
    .sort((a, b) => direction * (startOf(a) - startOf(b)) || direction * eventId(a).localeCompare(eventId(b)))
    .map(eventId);
}

describeEachEngine('calendar events: paging', (ctx) => {
  let auth: { authorization: string };

  before(async () => {
    const community = await ctx().community();
    auth = community.auth;
    await importInto(ctx(), community.id, {
      calendar_events: shuffled.map((n) => event(n, new Date(startOf(n)).toISOString(), hour)),
    });
  });

  it('walks upcoming events page by page with no repeat, no gap and a correct envelope', async () => {
    const seen: string[] = [];
    for (let page = 0; page < 4; page++) {
      const { status, body } = await listEvents(ctx(), auth, `time_filter=upcoming&page=${page}&per_page=10`);
      assert.equal(status, 200);
      const expectedCount = page < 3 ? 10 : 7;
      assert.deepEqual(
        {
          page: body.data.page,
          per_page: body.data.per_page,
          count: body.data.count,
          total: body.data.total_records,
          pages: body.data.total_pages,
          next: body.data.has_next,
        },
        { page, per_page: 10, count: expectedCount, total: 37, pages: 4, next: page < 3 },
      );
      seen.push(...idsOf(body));
    }
    assert.deepEqual(seen, expectedOrder(upcomingNumbers, 1));
  });

  it('walks past events newest first, ties by id descending, stable across page sizes', async () => {
    for (const perPage of [1, 3, 5, 7]) {
      const seen: string[] = [];
      for (let page = 0; ; page++) {
        const { body } = await listEvents(ctx(), auth, `time_filter=past&page=${page}&per_page=${perPage}`);
        seen.push(...idsOf(body));
        assert.equal(body.data.total_pages, Math.ceil(12 / perPage));
        if (!body.data.has_next) break;
      }
      assert.deepEqual(seen, expectedOrder(pastNumbers, -1), `per_page=${perPage}`);
    }
  });

  it('uses per_page 10 by default and returns the same page twice identically', async () => {
    const first = await listEvents(ctx(), auth, 'time_filter=upcoming&page=1');
    const again = await listEvents(ctx(), auth, 'time_filter=upcoming&page=1');
    assert.equal(first.body.data.per_page, 10);
    assert.deepEqual(idsOf(first.body), expectedOrder(upcomingNumbers, 1).slice(10, 20));
    assert.deepEqual(again.body, first.body);
  });

  it('returns every record on one page when per_page allows, and has_next false on the last page', async () => {
    const { body } = await listEvents(ctx(), auth, 'time_filter=all&per_page=50');
    assert.equal(body.data.count, 49);
    assert.equal(body.data.total_pages, 1);
    assert.equal(body.data.has_next, false);
    assert.deepEqual(idsOf(body), expectedOrder([...upcomingNumbers, ...pastNumbers], 1));
  });

  it('answers a page past the end with no records, count 0 and has_next false', async () => {
    const { status, body } = await listEvents(ctx(), auth, 'time_filter=upcoming&page=4&per_page=10');
    assert.equal(status, 200);
    assert.deepEqual(body.data.records, []);
    assert.equal(body.data.count, 0);
    assert.equal(body.data.has_next, false);
    assert.equal(body.data.total_records, 37);
    assert.equal(body.data.total_pages, 4);
  });

  it('has_next is false exactly when the page holds the last record (total a multiple of per_page)', async () => {
    const { body } = await listEvents(ctx(), auth, 'time_filter=past&page=1&per_page=6');
    assert.equal(body.data.count, 6);
    assert.equal(body.data.total_pages, 2);
    assert.equal(body.data.has_next, false);
  });

  it('reports zero pages for an empty result', async () => {
    const { body } = await listEvents(ctx(), auth, 'status=draft');
    assert.deepEqual(
      { count: body.data.count, total: body.data.total_records, pages: body.data.total_pages, next: body.data.has_next },
      { count: 0, total: 0, pages: 0, next: false },
    );
  });
});
