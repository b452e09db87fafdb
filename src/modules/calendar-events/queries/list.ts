import { type SelectQueryBuilder, sql } from 'kysely';
import type { Db, Tx } from '../../../db/database.js';
import { isDeepPage, type PreparedQuery, preparedQuery } from '../../../db/prepared-query.js';
import type { DB, Flag } from '../../../db/schema.js';
import { type EpochMicros, endOfTime, epochMicros } from '../../../shared/time.js';
import type { EventStatus, TimeFilter } from '../schemas/event.js';
import { type CalendarEventRow, eventRowColumns } from './events.js';

/* The SQL of the lists of events (GET /calendar_events): a page, its total, and how long they hold. */

/** What a list of calendar events is narrowed by (the parsed query of GET /calendar_events). */
export interface CalendarEventFilter {
  status: EventStatus;
  timeFilter: TimeFilter;
  /** Epoch µs splitting upcoming from past. */
  referenceAt: EpochMicros;
  /** The UTC calendar day [start, end) that events must overlap (date_filter). */
  day?: { start: EpochMicros; end: EpochMicros };
  /** 1 or 0 (the stored flag): values only, so that a compiled query can take them as parameters. */
  publishToSite?: Flag;
  isUnlisted?: Flag;
  feedId?: string;
  /** Non-empty when given: an event matches when it has any of them. */
  tagIds?: string[];
}

type EventQuery<O> = SelectQueryBuilder<DB, 'calendar_events', O>;

/**
 * The earliest start an event can have and still end at or after `instant`: `instant` minus the
 * longest event of that community and status (one step of calendar_events_duration). The lists
 * add `start_at >= lowerStartBound(...)`, which removes no row (ends_at <= start_at + longest) but
 * turns "ends after" into a range of the start index, so pages are read in order without a sort
 * and without walking the past. It is a subquery, so it sees the same snapshot as the list.
 */
function lowerStartBound(communityId: string, status: EventStatus, instant: EpochMicros) {
  return sql<EpochMicros>`${instant} - (select coalesce(max(ends_at - start_at), 0) from calendar_events where community_id = ${communityId} and status = ${status})`;
}

/**
 * Adds the filter's conditions to a query over calendar_events. `forOrderedScan` adds the
 * redundant start bounds that let the page query walk the start index (the count does without:
 * its best index is calendar_events_ends, which covers the time condition by itself).
 */
function applyEventFilter<O>(
  query: EventQuery<O>,
  communityId: string,
  filter: CalendarEventFilter,
  forOrderedScan: boolean,
): EventQuery<O> {
  let q = query.where('calendar_events.community_id', '=', communityId).where('calendar_events.status', '=', filter.status);
  const { referenceAt, status } = filter;
  if (filter.timeFilter === 'upcoming') {
    q = q.where('calendar_events.ends_at', '>=', referenceAt);
    if (forOrderedScan) q = q.where('calendar_events.start_at', '>=', lowerStartBound(communityId, status, referenceAt));
  } else if (filter.timeFilter === 'past') {
    q = q.where('calendar_events.ends_at', '<', referenceAt);
    // Implied by ends_at < T (an event never ends before it starts); stated for the index.
    if (forOrderedScan) q = q.where('calendar_events.start_at', '<', referenceAt);
  }
  if (filter.day) {
    const { start, end } = filter.day;
    // Overlap with [start, end): begins that day, or began before and ends after midnight
    // (an event that ends exactly at midnight belongs to the day before only).
    q = q
      .where('calendar_events.start_at', '<', end)
      .where((eb) => eb.or([eb('calendar_events.start_at', '>=', start), eb('calendar_events.ends_at', '>', start)]))
      .where('calendar_events.start_at', '>=', lowerStartBound(communityId, status, start));
  }
  if (filter.publishToSite !== undefined) q = q.where('calendar_events.publish_to_site', '=', filter.publishToSite);
  if (filter.isUnlisted !== undefined) q = q.where('calendar_events.is_unlisted', '=', filter.isUnlisted);
  if (filter.feedId !== undefined) q = withChild(q, communityId, { table: 'calendar_event_feeds', column: 'feed_id' }, '=', filter.feedId);
  if (filter.tagIds !== undefined && filter.tagIds.length > 0)
    q = withChild(q, communityId, { table: 'calendar_event_tags', column: 'tag_id' }, 'in', filter.tagIds);
  return q;
}

/** The child tables a list filters on (an event's feeds, its tags), each with the column it matches. */
type FilteredChild = 'calendar_event_feeds' | 'calendar_event_tags';

/** Keeps the events with a child row whose column matches: an `in` subquery, so an event with two matching tags is listed once. */
function withChild<O>(
  q: EventQuery<O>,
  communityId: string,
  child: { table: 'calendar_event_feeds'; column: 'feed_id' } | { table: 'calendar_event_tags'; column: 'tag_id' },
  op: '=' | 'in',
  value: string | readonly string[],
): EventQuery<O> {
  const { table } = child;
  return q.where('calendar_events.id', 'in', (eb) =>
    eb
      .selectFrom(table as FilteredChild)
      .select(`${table}.event_id` as const)
      .where(`${table}.community_id` as const, '=', communityId)
      .where(`${child.table}.${child.column}` as 'calendar_event_feeds.feed_id' | 'calendar_event_tags.tag_id', op, value),
  );
}

/** Sorts by start (descending for past events), ties broken by id in the same direction. */
function orderEvents<O>(query: EventQuery<O>, timeFilter: TimeFilter): EventQuery<O> {
  const direction = timeFilter === 'past' ? 'desc' : 'asc';
  return query.orderBy('calendar_events.start_at', direction).orderBy('calendar_events.id', direction);
}

/**
 * The query of one page of events (exported so tests can EXPLAIN exactly what the API runs).
 * `deep`: the page's ids are read first (an index-only scan of calendar_events_start, which covers
 * every column the filter and the order need) and only the page's rows are fetched; see isDeepPage.
 */
export function calendarEventsPageQuery(
  db: Db | Tx,
  communityId: string,
  filter: CalendarEventFilter,
  limit: number,
  offset: number,
  deep = false,
) {
  const columns = eventRowColumns.map((column) => `calendar_events.${column}` as const);
  if (!deep) {
    const base = db.selectFrom('calendar_events').select(columns);
    return orderEvents(applyEventFilter(base, communityId, filter, true), filter.timeFilter)
      .limit(limit)
      .offset(offset);
  }
  const ids = orderEvents(
    applyEventFilter(db.selectFrom('calendar_events').select('calendar_events.id'), communityId, filter, true),
    filter.timeFilter,
  )
    .limit(limit)
    .offset(offset);
  const rows = db
    .selectFrom('calendar_events')
    .select(columns)
    .where('calendar_events.community_id', '=', communityId)
    .where('calendar_events.id', 'in', ids);
  return orderEvents(rows, filter.timeFilter);
}

/** The values of a page query; which of them the SQL uses depends on the filter's shape. */
interface PageParams {
  [name: string]: string | number | null | readonly string[];
  communityId: string;
  status: EventStatus;
  referenceAt: EpochMicros;
  dayStart: EpochMicros;
  dayEnd: EpochMicros;
  publishToSite: Flag;
  isUnlisted: Flag;
  feedId: string;
  tagIds: readonly string[];
  limit: number;
  offset: number;
}

type PageQuery = PreparedQuery<PageParams, ReturnType<typeof calendarEventsPageQuery>>;

/** Which conditions a filter has (its values aside): each shape is one SQL text. */
const shapeOf = (filter: CalendarEventFilter): string =>
  [
    filter.timeFilter,
    filter.day && 'day',
    filter.publishToSite !== undefined && 'site',
    filter.isUnlisted !== undefined && 'unlisted',
    filter.feedId !== undefined && 'feed',
    filter.tagIds?.length && 'tags',
  ]
    .filter(Boolean)
    .join(' ');

const pageQueries = new Map<string, PageQuery>();

/** The prepared page query of a filter's shape, built on first use. At most 3 x 2^5 x 2 shapes. */
function pageQueryOf(filter: CalendarEventFilter, deep: boolean): PageQuery {
  const shape = deep ? `${shapeOf(filter)} deep` : shapeOf(filter);
  let query = pageQueries.get(shape);
  if (!query) {
    const { timeFilter, day, publishToSite, isUnlisted, feedId, tagIds } = filter;
    query = preparedQuery((db, p: PageParams) =>
      calendarEventsPageQuery(
        db,
        p.communityId,
        {
          status: p.status,
          timeFilter,
          referenceAt: p.referenceAt,
          ...(day ? { day: { start: p.dayStart, end: p.dayEnd } } : {}),
          ...(publishToSite === undefined ? {} : { publishToSite: p.publishToSite }),
          ...(isUnlisted === undefined ? {} : { isUnlisted: p.isUnlisted }),
          ...(feedId === undefined ? {} : { feedId: p.feedId }),
          ...(tagIds?.length ? { tagIds: p.tagIds as string[] } : {}),
        },
        p.limit,
        p.offset,
        deep,
      ),
    );
    pageQueries.set(shape, query);
  }
  return query;
}

/** One page of events matching the filter, in list order. */
export async function selectCalendarEventsPage(
  db: Db | Tx,
  communityId: string,
  filter: CalendarEventFilter,
  limit: number,
  offset: number,
): Promise<CalendarEventRow[]> {
  return pageQueryOf(filter, isDeepPage(db, limit, offset)).all(db, {
    communityId,
    status: filter.status,
    referenceAt: filter.referenceAt,
    dayStart: filter.day?.start ?? epochMicros(0),
    dayEnd: filter.day?.end ?? epochMicros(0),
    publishToSite: filter.publishToSite ?? 0,
    isUnlisted: filter.isUnlisted ?? 0,
    feedId: filter.feedId ?? '',
    tagIds: filter.tagIds ?? [],
    limit,
    offset,
  });
}

/** The query counting the events that match the filter (exported for EXPLAIN in tests). */
export function calendarEventsCountQuery(db: Db | Tx, communityId: string, filter: CalendarEventFilter) {
  const base = db.selectFrom('calendar_events').select((eb) => eb.fn.countAll<number>().as('total'));
  return applyEventFilter(base, communityId, filter, false);
}

/** How many events match the filter (kept apart so that a cache keyed by events_version can front it). */
export async function countCalendarEvents(db: Db | Tx, communityId: string, filter: CalendarEventFilter): Promise<number> {
  const row = await calendarEventsCountQuery(db, communityId, filter).executeTakeFirstOrThrow();
  return Number(row.total);
}

const nextEndingAt = preparedQuery((db, p: { communityId: string; status: EventStatus; instant: EpochMicros }) =>
  db
    .selectFrom('calendar_events')
    .select((eb) => eb.fn.min('ends_at').as('next'))
    .where('community_id', '=', p.communityId)
    .where('status', '=', p.status)
    .where('ends_at', '>=', p.instant),
);

/**
 * The earliest end (ends_at) at or after `instant` among the community's events of a status: until
 * then no event crosses the reference time, so time-relative totals cannot change. Infinity when none.
 */
export async function selectNextEndingAt(
  db: Db | Tx,
  communityId: string,
  status: EventStatus,
  instant: EpochMicros,
): Promise<EpochMicros> {
  const row = await nextEndingAt.first(db, { communityId, status, instant });
  return row?.next === null || row?.next === undefined ? endOfTime : row.next;
}
