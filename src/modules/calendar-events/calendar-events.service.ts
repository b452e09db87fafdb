import type { Database, Db, Tx } from '../../db/database.js';
import type { Flag } from '../../db/schema.js';
import { ApiError, notFound, validationFailed } from '../../errors.js';
import type { PageMeta } from '../../http/json-text.js';
import { bumpDataVersion } from '../communities/communities.queries.js';
import type { CountCache } from '../counts/count-cache.js';
import { resolveReferences } from '../references/resolve-references.js';
import { type CalendarEventFilter, utcDayOf } from './calendar-events.filter.js';
import {
  deleteEventChildren,
  deleteEventRow,
  eventExists,
  incrementAttendeesCount,
  insertAttendeeIfAbsent,
  updateAttendeeLink,
} from './calendar-events.mutations.js';
import {
  countCalendarEvents,
  selectCalendarEventRow,
  selectCalendarEventsPage,
  selectEventPeople,
  selectNextEndingAt,
  selectProfileIdByChatUserId,
} from './calendar-events.queries.js';
import { type CalendarEventRow, isHttpUrl, mentionsOf, renderCalendarEvent } from './calendar-events.records.js';
import { type AttendeeBody, defaultPerPage, type ListQuery, maxTagIdsInFilter } from './calendar-events.schemas.js';

/** One page of events: the paged list envelope, with each record as its JSON text. */
export interface CalendarEventPage extends PageMeta {
  records: string[];
}

const eventNotFound = () => notFound('Calendar event');

/** Epoch ms of a format-checked date-time query value; 400 when it names no instant (e.g. a leap second). */
function queryInstant(field: string, value: string): number {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw validationFailed(`query.${field}`, 'must be a valid ISO 8601 date-time');
  return ms;
}

/** The ids of a `tag_ids` value: comma-separated, trimmed, none empty, deduplicated. */
function parseTagIds(value: string): string[] {
  const ids = value.split(',').map((id) => id.trim());
  if (ids.some((id) => id === '')) throw validationFailed('query.tag_ids', 'must be comma-separated tag ids, none empty');
  const unique = [...new Set(ids)];
  if (unique.length > maxTagIdsInFilter) throw validationFailed('query.tag_ids', `must list at most ${maxTagIdsInFilter} tag ids`);
  return unique;
}

/** The list filter of a validated query; reference_date defaults to `now`. */
export function filterFromQuery(query: ListQuery, now: number): CalendarEventFilter {
  const flag = (value: 'true' | 'false' | undefined): Flag | undefined => (value === undefined ? undefined : value === 'true' ? 1 : 0);
  return {
    status: query.status ?? 'published',
    timeFilter: query.time_filter ?? 'upcoming',
    referenceAt: query.reference_date === undefined ? now : queryInstant('reference_date', query.reference_date),
    ...(query.date_filter === undefined ? {} : { day: utcDayOf(queryInstant('date_filter', query.date_filter)) }),
    publishToSite: flag(query.published_to_site),
    isUnlisted: flag(query.is_unlisted),
    ...(query.feed_id === undefined ? {} : { feedId: query.feed_id.toLowerCase() }),
    ...(query.tag_ids === undefined ? {} : { tagIds: parseTagIds(query.tag_ids) }),
  };
}

/** API records (JSON text) of rows, with hosts, speakers and references loaded for all of them at once. */
async function renderCalendarEvents(db: Db | Tx, communityId: string, rows: CalendarEventRow[]): Promise<string[]> {
  if (rows.length === 0) return [];
  const mentions = rows.map(mentionsOf);
  const [people, references] = await Promise.all([
    selectEventPeople(
      db,
      communityId,
      rows.map((row) => row.id),
    ),
    resolveReferences(
      db,
      communityId,
      mentions.flatMap((m) => [m.description, m.recap]),
    ),
  ]);
  return rows.map((row, i) => {
    const description = references[2 * i];
    const recap = references[2 * i + 1];
    return renderCalendarEvent(row, people.get(row.id), description && recap ? { description, recap } : undefined);
  });
}

/** True when the answer to the query depends on the clock (no reference_date, upcoming or past). */
function isRelativeToNow(query: ListQuery, filter: CalendarEventFilter): boolean {
  return query.reference_date === undefined && filter.timeFilter !== 'all';
}

/** The filter as a cache key: "now" stands for the clock, so one key serves until the answer changes. */
function filterKey(query: ListQuery, filter: CalendarEventFilter): string {
  return JSON.stringify({ ...filter, referenceAt: isRelativeToNow(query, filter) ? 'now' : filter.referenceAt });
}

/**
 * Until when (epoch ms, inclusive) an answer computed at `now` holds while the events do not
 * change: a list relative to "now" until the next event ends (it then leaves "upcoming" for
 * "past"), any other list for ever.
 */
async function validUntilOf(
  database: Database,
  communityId: string,
  query: ListQuery,
  filter: CalendarEventFilter,
  now: number,
): Promise<number> {
  return isRelativeToNow(query, filter) ? selectNextEndingAt(database.db, communityId, filter.status, now) : Number.POSITIVE_INFINITY;
}

/**
 * The exact total of a list, from the count cache when one is given. A total relative to "now"
 * holds until the next event ends; any other total holds until the community's events change
 * (events_version).
 */
async function cachedEventTotal(
  database: Database,
  counts: CountCache | undefined,
  communityId: string,
  query: ListQuery,
  filter: CalendarEventFilter,
  now: number,
): Promise<number> {
  if (!counts) return countCalendarEvents(database.db, communityId, filter);
  return counts.total(database, communityId, 'events_version', filterKey(query, filter), now, async () => ({
    count: await countCalendarEvents(database.db, communityId, filter),
    validUntil: await validUntilOf(database, communityId, query, filter, now),
  }));
}

/** The cache key of a list query: its normalised filter and its page. */
export function eventListKey(query: ListQuery, now: number): string {
  const filter = filterFromQuery(query, now);
  return `list ${query.page ?? 0} ${query.per_page ?? defaultPerPage} ${filterKey(query, filter)}`;
}

/** One page of the community's events for a validated list query. */
export async function listCalendarEvents(
  database: Database,
  communityId: string,
  query: ListQuery,
  now: number,
  counts?: CountCache,
): Promise<CalendarEventPage> {
  return (await listCalendarEventsWithValidity(database, communityId, query, now, counts)).page;
}

/** A page together with the last instant at which it is still the exact answer (for the response cache). */
export async function listCalendarEventsWithValidity(
  database: Database,
  communityId: string,
  query: ListQuery,
  now: number,
  counts?: CountCache,
): Promise<{ page: CalendarEventPage; validUntil: number }> {
  const page = query.page ?? 0;
  const perPage = query.per_page ?? defaultPerPage;
  const filter = filterFromQuery(query, now);
  const [total, rows, validUntil] = await Promise.all([
    cachedEventTotal(database, counts, communityId, query, filter, now),
    selectCalendarEventsPage(database.db, communityId, filter, perPage, page * perPage),
    validUntilOf(database, communityId, query, filter, now),
  ]);
  const records = await renderCalendarEvents(database.db, communityId, rows);
  return {
    page: {
      page,
      per_page: perPage,
      count: records.length,
      total_records: total,
      total_pages: Math.ceil(total / perPage),
      has_next: (page + 1) * perPage < total,
      records,
    },
    validUntil,
  };
}

/** One event of the community as the API shows it (JSON text); 404 when there is none. */
export async function getCalendarEvent(database: Database, communityId: string, id: string): Promise<string> {
  const row = await selectCalendarEventRow(database.db, communityId, id);
  if (!row) throw eventNotFound();
  const [event] = await renderCalendarEvents(database.db, communityId, [row]);
  if (!event) throw eventNotFound();
  return event;
}

/** Deletes an event and its child rows in one transaction; 404 when there is none. */
export async function deleteCalendarEvent(database: Database, communityId: string, id: string): Promise<{ id: string }> {
  await database.db.transaction().execute(async (tx) => {
    if (!(await deleteEventRow(tx, communityId, id))) throw eventNotFound();
    await deleteEventChildren(tx, communityId, [id]);
    await bumpDataVersion(tx, communityId, 'events_version');
  });
  return { id };
}

/** undefined: leave the link as it is; null: clear it; else the validated link. */
function joinLinkOf(value: string | null | undefined): string | null | undefined {
  if (value === undefined) return undefined;
  if (value === null || value === '') return null;
  if (!isHttpUrl(value)) throw validationFailed('body.personal_join_link', 'must be an http(s) URL (or "" or null to clear it)');
  return value;
}

/**
 * Makes the community's profile with `user.chat_user_id` an attendee of the event (attendees_count
 * grows by one) or, when it already is one, updates its personal join link. All in one transaction.
 */
export async function upsertAttendee(
  database: Database,
  communityId: string,
  eventId: string,
  body: AttendeeBody,
  now: number,
): Promise<void> {
  const link = joinLinkOf(body.personal_join_link);
  await database.db.transaction().execute(async (tx) => {
    if (!(await eventExists(tx, communityId, eventId))) throw eventNotFound();
    const profileId = await selectProfileIdByChatUserId(tx, communityId, body.user.chat_user_id);
    if (!profileId) throw new ApiError('not_found', `No profile with chat_user_id "${body.user.chat_user_id}" in this community.`);
    const added = await insertAttendeeIfAbsent(tx, {
      community_id: communityId,
      event_id: eventId,
      profile_id: profileId,
      personal_join_link: link ?? null,
      now,
    });
    if (added) {
      // The event may have been deleted since it was checked (PostgreSQL): then nothing is kept.
      if (!(await incrementAttendeesCount(tx, communityId, eventId))) throw eventNotFound();
    } else if (link !== undefined) {
      await updateAttendeeLink(tx, { communityId, eventId, profileId }, link, now);
    }
    // attendees_count is part of the event record: cached answers of it must go.
    if (added) await bumpDataVersion(tx, communityId, 'events_version');
  });
}
