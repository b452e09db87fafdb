import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { type Compilable, CompiledQuery, sql } from 'kysely';
import { takenSlugsQuery } from '../../../src/modules/calendar-events/queries/events.js';
import { calendarEventsCountQuery, calendarEventsPageQuery } from '../../../src/modules/calendar-events/queries/list.js';
import { filterFromQuery } from '../../../src/modules/calendar-events/rules/list-filter.js';
import type { ListQuery } from '../../../src/modules/calendar-events/schemas/event.js';
import { storedNow } from '../../../src/shared/clock.js';
import { describeEachEngine, type TestApp } from '../../support/harness.js';
import { event, feed, hour, importInto, listEvents, uuid } from './fixtures.js';

// 10,000 events over five years around "now" (2026-11-21T12:00Z), every 4 hours, a third of them
// draft or awaiting approval, some tagged, some published to a feed; plus another community.
const total = 10_000;
const statuses = ['published', 'published', 'draft', 'needs_approval'] as const;
const firstStart = Date.parse('2024-05-01T00:00:00Z');
const events = Array.from({ length: total }, (_, i) =>
  event(i + 1, new Date(firstStart + i * 4 * hour).toISOString(), i % 10 === 0 ? null : hour, {
    status: statuses[i % 4],
    publish_to_site: i % 3 === 0,
    is_unlisted: i % 5 === 0,
    tags: i % 7 === 0 ? [{ id: `t${i % 3}` }] : [],
    published_to: i % 11 === 0 ? [{ feed_id: uuid(1 + (i % 2), 2) }] : [],
  }),
);

/** The plan lines of a query: SQLite's EXPLAIN QUERY PLAN details, PostgreSQL's EXPLAIN text. */
async function planOf(app: TestApp, query: Compilable): Promise<string[]> {
  const compiled = query.compile();
  const prefix = app.engine === 'sqlite' ? 'EXPLAIN QUERY PLAN ' : 'EXPLAIN ';
  const result = await app.database.db.executeQuery<Record<string, unknown>>(
    CompiledQuery.raw(prefix + compiled.sql, [...compiled.parameters]),
  );
  return result.rows.map((row) => String(app.engine === 'sqlite' ? row.detail : row['QUERY PLAN']));
}

/**
 * Asserts that calendar_events is read through one of its indexes, never scanned whole. On SQLite
 * (rule-based without ANALYZE, as deployed) a sorted page must also come in index order; PostgreSQL
 * may rightly prefer sorting a few hundred rows found through an index, so only the index is asserted.
 */
function assertIndexed(app: TestApp, plan: string[], label: string, options: { sorted: boolean }): void {
  const text = plan.join('\n');
  if (app.engine === 'sqlite') {
    assert.doesNotMatch(text, /^SCAN calendar_events\b(?! USING)/m, `${label}: full scan\n${text}`);
    assert.match(
      text,
      /(SEARCH|SCAN) calendar_events USING (COVERING )?INDEX calendar_events_(start|ends|duration)\b/,
      `${label}: no event index\n${text}`,
    );
    if (options.sorted) assert.doesNotMatch(text, /TEMP B-TREE FOR ORDER BY/, `${label}: sorts instead of reading in index order\n${text}`);
  } else {
    assert.doesNotMatch(text, /Seq Scan on calendar_events\b/, `${label}: full scan\n${text}`);
    assert.match(
      text,
      /Index (Only )?Scan (Backward )?using calendar_events_(start|ends|duration|pk) on calendar_events\b|Bitmap Index Scan on calendar_events_(start|ends|duration)\b/,
      `${label}: no event index\n${text}`,
    );
  }
}

describeEachEngine('calendar events: list over 10,000 events uses the indexes', (ctx) => {
  let communityId: string;
  let auth: { authorization: string };

  before(async () => {
    const community = await ctx().community();
    communityId = community.id;
    auth = community.auth;
    await importInto(ctx(), communityId, { feeds: [feed(1), feed(2)], calendar_events: events });
    const other = await ctx().community();
    await importInto(ctx(), other.id, { feeds: [feed(1), feed(2)], calendar_events: events.slice(0, 500) });
    // PostgreSQL plans from statistics and the visibility map, which autovacuum would build shortly
    // after such an import.
    if (ctx().engine === 'postgres') await sql`vacuum analyze`.execute(ctx().database.db);
  });

  it('answers the upcoming list with the right totals', async () => {
    const { status, body } = await listEvents(ctx(), auth, 'time_filter=upcoming&per_page=50');
    assert.equal(status, 200);
    const now = Date.parse('2026-11-21T12:00:00Z');
    const expected = events.filter((e) => e.status === 'published' && Date.parse(String(e.end_date ?? e.start_date)) >= now).length;
    assert.equal(body.data.total_records, expected);
    assert.equal(body.data.count, 50);
    assert.ok(Date.parse(body.data.records[0]?.start_date ?? '') >= now - hour);
  });

  const sortedQueries: [string, ListQuery][] = [
    ['default (published, all)', {}],
    ['upcoming', { time_filter: 'upcoming' }],
    ['past', { time_filter: 'past' }],
    ['all', { time_filter: 'all' }],
    ['draft upcoming, page 20', { status: 'draft', time_filter: 'upcoming', page: 20, per_page: 50 }],
    ['date_filter', { time_filter: 'all', date_filter: '2026-12-24T10:00:00Z' }],
    ['flags', { published_to_site: 'true', is_unlisted: 'false' }],
  ];
  for (const [label, query] of sortedQueries) {
    it(`reads the page in index order without scanning calendar_events: ${label}`, async () => {
      const filter = filterFromQuery(query, storedNow(ctx().clock));
      const plan = await planOf(
        ctx(),
        calendarEventsPageQuery(ctx().database.db, communityId, filter, query.per_page ?? 10, (query.page ?? 0) * (query.per_page ?? 10)),
      );
      assertIndexed(ctx(), plan, label, { sorted: true });
    });
  }

  const filteredQueries: [string, ListQuery][] = [
    ['feed_id', { feed_id: uuid(1, 2) }],
    ['tag_ids', { tag_ids: 't1,t2', time_filter: 'all' }],
    ['everything', { feed_id: uuid(2, 2), tag_ids: 't0', date_filter: '2027-01-01T00:00:00Z', published_to_site: 'false' }],
  ];
  for (const [label, query] of [...sortedQueries, ...filteredQueries]) {
    it(`counts through an index: ${label}`, async () => {
      const filter = filterFromQuery(query, storedNow(ctx().clock));
      assertIndexed(ctx(), await planOf(ctx(), calendarEventsCountQuery(ctx().database.db, communityId, filter)), `count ${label}`, {
        sorted: false,
      });
    });
  }
  for (const [label, query] of filteredQueries) {
    it(`filters through the join tables' indexes without scanning calendar_events: ${label}`, async () => {
      const filter = filterFromQuery(query, storedNow(ctx().clock));
      const plan = await planOf(ctx(), calendarEventsPageQuery(ctx().database.db, communityId, filter, 10, 0));
      const text = plan.join('\n');
      if (ctx().engine === 'sqlite') assert.doesNotMatch(text, /^SCAN calendar_events\b(?! USING)/m, text);
      else assert.doesNotMatch(text, /Seq Scan on calendar_events\b/, text);
    });
  }

  it('finds the slugs taken (event create, title change) through calendar_events_slug, not by reading every event', async () => {
    const slugs = ['event-1', 'event-1-2', 'event-1-3'];
    const plan = (await planOf(ctx(), takenSlugsQuery(ctx().database.db, communityId, slugs))).join('\n');
    if (ctx().engine === 'sqlite') assert.match(plan, /SEARCH calendar_events USING INDEX calendar_events_slug\b/, plan);
    else
      assert.match(
        plan,
        /(Index Scan|Bitmap Index Scan) using calendar_events_slug on calendar_events\b|Bitmap Index Scan on calendar_events_slug\b/,
        plan,
      );
  });
});
