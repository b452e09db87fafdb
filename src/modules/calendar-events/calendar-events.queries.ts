import type { Db, Tx } from '../../db/database.js';
import type { Profile } from '../profiles/profiles.schemas.js';
import { applyEventFilter, type CalendarEventFilter, orderEvents } from './calendar-events.filter.js';
import { type CalendarEventRow, type EventPeople, eventRowColumns } from './calendar-events.records.js';

/** The query of one page of events (exported so tests can EXPLAIN exactly what the API runs). */
export function calendarEventsPageQuery(db: Db | Tx, communityId: string, filter: CalendarEventFilter, limit: number, offset: number) {
  const base = db.selectFrom('calendar_events').select(eventRowColumns.map((column) => `calendar_events.${column}` as const));
  return orderEvents(applyEventFilter(base, communityId, filter, true), filter.timeFilter)
    .limit(limit)
    .offset(offset);
}

/** One page of events matching the filter, in list order. */
export async function selectCalendarEventsPage(
  db: Db | Tx,
  communityId: string,
  filter: CalendarEventFilter,
  limit: number,
  offset: number,
): Promise<CalendarEventRow[]> {
  return calendarEventsPageQuery(db, communityId, filter, limit, offset).execute();
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

/**
 * The earliest end (ends_at) at or after `instant` among the community's events of a status: until
 * then no event crosses the reference time, so time-relative totals cannot change. Infinity when none.
 */
export async function selectNextEndingAt(db: Db | Tx, communityId: string, status: string, instant: number): Promise<number> {
  const row = await db
    .selectFrom('calendar_events')
    .select((eb) => eb.fn.min('ends_at').as('next'))
    .where('community_id', '=', communityId)
    .where('status', '=', status as CalendarEventFilter['status'])
    .where('ends_at', '>=', instant)
    .executeTakeFirst();
  return row?.next === null || row?.next === undefined ? Number.POSITIVE_INFINITY : Number(row.next);
}

/** One event of the community, or undefined. */
export async function selectCalendarEventRow(db: Db | Tx, communityId: string, id: string): Promise<CalendarEventRow | undefined> {
  return db
    .selectFrom('calendar_events')
    .select(eventRowColumns)
    .where('community_id', '=', communityId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Hosts and speakers (full profiles, in stored order) of the given events, in one read. */
export async function selectEventPeople(db: Db | Tx, communityId: string, eventIds: readonly string[]): Promise<Map<string, EventPeople>> {
  const people = new Map<string, EventPeople>();
  if (eventIds.length === 0) return people;
  const rows = await db
    .selectFrom('calendar_event_people as p')
    .innerJoin('profiles as pr', (join) => join.onRef('pr.community_id', '=', 'p.community_id').onRef('pr.id', '=', 'p.profile_id'))
    .select(['p.event_id', 'p.role', 'pr.doc'])
    .where('p.community_id', '=', communityId)
    .where('p.event_id', 'in', [...new Set(eventIds)])
    .orderBy('p.event_id')
    .orderBy('p.role')
    .orderBy('p.position')
    .execute();
  for (const row of rows) {
    let entry = people.get(row.event_id);
    if (!entry) {
      entry = { hosts: [], speakers: [] };
      people.set(row.event_id, entry);
    }
    (row.role === 'host' ? entry.hosts : entry.speakers).push(JSON.parse(row.doc) as Profile);
  }
  return people;
}

/** The profile id of the community's profile with this chat user id (the oldest, if several). */
export async function selectProfileIdByChatUserId(db: Db | Tx, communityId: string, chatUserId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('profiles')
    .select('id')
    .where('community_id', '=', communityId)
    .where('chat_user_id', '=', chatUserId)
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return row?.id;
}
