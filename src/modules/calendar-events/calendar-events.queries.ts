import type { Db, Tx } from '../../db/database.js';
import { isDeepPage, type PreparedQuery, preparedQuery } from '../../db/prepared-query.js';
import type { Flag } from '../../db/schema.js';
import { type EpochMicros, endOfTime, epochMicros } from '../../shared/time.js';
import { applyEventFilter, type CalendarEventFilter, orderEvents } from './calendar-events.filter.js';
import { type CalendarEventRow, type EventPeople, eventRowColumns } from './calendar-events.records.js';
import type { EventStatus } from './calendar-events.schemas.js';

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
  return row?.next === null || row?.next === undefined ? endOfTime : epochMicros(Number(row.next));
}

const eventRow = preparedQuery((db, p: { communityId: string; id: string }) =>
  db.selectFrom('calendar_events').select(eventRowColumns).where('community_id', '=', p.communityId).where('id', '=', p.id),
);

/** One event of the community, or undefined. */
export async function selectCalendarEventRow(db: Db | Tx, communityId: string, id: string): Promise<CalendarEventRow | undefined> {
  return eventRow.first(db, { communityId, id });
}

const eventPeople = preparedQuery((db, p: { communityId: string; eventIds: readonly string[] }) =>
  db
    .selectFrom('calendar_event_people as p')
    .innerJoin('profiles as pr', (join) => join.onRef('pr.community_id', '=', 'p.community_id').onRef('pr.id', '=', 'p.profile_id'))
    .select(['p.event_id', 'p.role', 'pr.doc'])
    .where('p.community_id', '=', p.communityId)
    .where('p.event_id', 'in', p.eventIds)
    .orderBy('p.event_id')
    .orderBy('p.role')
    .orderBy('p.position'),
);

/** Hosts and speakers (their stored profile JSON, in stored order) of the given events, in one read. */
export async function selectEventPeople(db: Db | Tx, communityId: string, eventIds: readonly string[]): Promise<Map<string, EventPeople>> {
  const people = new Map<string, EventPeople>();
  if (eventIds.length === 0) return people;
  for (const row of await eventPeople.all(db, { communityId, eventIds: [...new Set(eventIds)] })) {
    let entry = people.get(row.event_id);
    if (!entry) {
      entry = { hosts: [], speakers: [] };
      people.set(row.event_id, entry);
    }
    (row.role === 'host' ? entry.hosts : entry.speakers).push(row.doc);
  }
  return people;
}

const profileIdByChatUserId = preparedQuery((db, p: { communityId: string; chatUserId: string }) =>
  db
    .selectFrom('profiles')
    .select('id')
    .where('community_id', '=', p.communityId)
    .where('chat_user_id', '=', p.chatUserId)
    .orderBy('created_at')
    .orderBy('id')
    .limit(1),
);

/** The profile id of the community's profile with this chat user id (the oldest, if several). */
export async function selectProfileIdByChatUserId(db: Db | Tx, communityId: string, chatUserId: string): Promise<string | undefined> {
  return (await profileIdByChatUserId.first(db, { communityId, chatUserId }))?.id;
}
