import { cachedRead } from '../../caching/cached-read.js';
import type { CountCache } from '../../caching/count-cache.js';
import type { Database, Db, Tx } from '../../db/database.js';
import type { Flag } from '../../db/schema.js';
import { ApiError, notFound, validationFailed } from '../../errors.js';
import { selectRelatedRows } from '../../references/related-rows.js';
import { mentionKeys, referencesOf } from '../../references/resolve-references.js';
import { dataEnvelope, type PageMeta, pagedListEnvelope, pageOf } from '../../schemas/json-text.js';
import { JsonText } from '../../shared/json-text.js';
import type { DatabaseDeps, StorageDeps } from '../../shared/service-deps.js';
import { type EpochMicros, endOfTime } from '../../shared/time.js';
import { parseTimestamp } from '../../shared/timestamps.js';
import { writeCommunityData } from '../../write-path/write-community-data.js';
import { type CalendarEventFilter, utcDayOf } from './calendar-events.filter.js';
import {
  deleteEventChildren,
  deleteEventRow,
  incrementAttendeesCount,
  insertAttendeeIfAbsent,
  updateAttendeeLink,
} from './calendar-events.mutations.js';
import {
  countCalendarEvents,
  selectCalendarEventRow,
  selectCalendarEventsPage,
  selectNextEndingAt,
  selectProfileIdByChatUserId,
} from './calendar-events.queries.js';
import {
  type CalendarEventRow,
  eventPersonJson,
  isHttpUrl,
  mentionsOf,
  renderCalendarEvent,
  triggersWebhooks,
} from './calendar-events.records.js';
import { type AttendeeBody, defaultPerPage, type ListQuery, maxTagIdsInFilter } from './calendar-events.schemas.js';

/** One page of events: the paged list envelope, with each record as its JSON text. */
export interface CalendarEventPage extends PageMeta {
  records: string[];
}

const eventNotFound = () => notFound('Calendar event');

/** Epoch µs of a format-checked date-time query value; 400 when it names no instant (e.g. a leap second). */
function queryInstant(field: string, value: string): EpochMicros {
  const us = parseTimestamp(value);
  if (us === undefined) throw validationFailed(`query.${field}`, 'must be a valid ISO 8601 date-time');
  return us;
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
export function filterFromQuery(query: ListQuery, now: EpochMicros): CalendarEventFilter {
  const flag = (value: 'true' | 'false' | undefined): Flag | undefined => (value === undefined ? undefined : value === 'true' ? 1 : 0);
  return {
    status: query.status ?? 'published',
    timeFilter: query.time_filter ?? 'all',
    referenceAt: query.reference_date === undefined ? now : queryInstant('reference_date', query.reference_date),
    ...(query.date_filter === undefined ? {} : { day: utcDayOf(queryInstant('date_filter', query.date_filter)) }),
    publishToSite: flag(query.published_to_site),
    isUnlisted: flag(query.is_unlisted),
    ...(query.feed_id === undefined ? {} : { feedId: query.feed_id.toLowerCase() }),
    ...(query.tag_ids === undefined ? {} : { tagIds: parseTagIds(query.tag_ids) }),
  };
}

/**
 * API records (JSON text) of rows, with hosts, speakers and references loaded for all of them at
 * once. `withoutPeople`: the caller knows that none of the rows has hosts or speakers (an event it
 * has just written), so they are not read.
 */
export async function renderCalendarEvents(
  db: Db | Tx,
  communityId: string,
  rows: CalendarEventRow[],
  options: { withoutPeople?: boolean } = {},
): Promise<string[]> {
  if (rows.length === 0) return [];
  const mentions = rows.map(mentionsOf);
  const mentionsList = mentions.flatMap((m) => [m.description, m.recap]);
  const related = await selectRelatedRows(db, communityId, {
    eventIds: options.withoutPeople ? [] : rows.map((row) => row.id),
    ...mentionKeys(mentionsList),
  });
  const people = related.people;
  const references = referencesOf(mentionsList, related);
  // One rendering per profile, however many of the page's events it hosts or speaks at.
  const persons = new Map<string, string>();
  const personOf = (profileJson: string): string => {
    let json = persons.get(profileJson);
    if (json === undefined) {
      json = eventPersonJson(profileJson);
      persons.set(profileJson, json);
    }
    return json;
  };
  for (const entry of people.values()) {
    entry.hosts = entry.hosts.map(personOf);
    entry.speakers = entry.speakers.map(personOf);
  }
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

/**
 * The filter as a cache key. `all` does not depend on the reference instant at all, so it is left
 * out: otherwise every request of the default list (no reference_date) would carry the current
 * instant and neither the response cache nor the count cache would ever be hit. For upcoming and
 * past, "now" stands for the clock, so one key serves until the answer changes.
 */
function filterKey(query: ListQuery, filter: CalendarEventFilter): string {
  const referenceAt = filter.timeFilter === 'all' ? null : isRelativeToNow(query, filter) ? 'now' : filter.referenceAt;
  return JSON.stringify({ ...filter, referenceAt });
}

/**
 * Until when (epoch µs, inclusive) an answer computed at `now` holds while the events do not
 * change: a list relative to "now" until the next event ends (it then leaves "upcoming" for
 * "past"), any other list for ever.
 */
async function validUntilOf(
  database: Database,
  communityId: string,
  query: ListQuery,
  filter: CalendarEventFilter,
  now: EpochMicros,
): Promise<EpochMicros> {
  return isRelativeToNow(query, filter) ? selectNextEndingAt(database.db, communityId, filter.status, now) : endOfTime;
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
  now: EpochMicros,
): Promise<number> {
  if (!counts) return countCalendarEvents(database.db, communityId, filter);
  return counts.total(database, communityId, 'events_version', filterKey(query, filter), now, async () => ({
    count: await countCalendarEvents(database.db, communityId, filter),
    validUntil: await validUntilOf(database, communityId, query, filter, now),
  }));
}

/** The cache key of a list query: its normalised filter and its page. */
function eventListKey(query: ListQuery, now: EpochMicros): string {
  const filter = filterFromQuery(query, now);
  return `list ${query.page ?? 0} ${query.per_page ?? defaultPerPage} ${filterKey(query, filter)}`;
}

/** A page together with the last instant at which it is still the exact answer. */
async function listCalendarEventsWithValidity(
  database: Database,
  communityId: string,
  query: ListQuery,
  now: EpochMicros,
  counts?: CountCache,
): Promise<{ page: CalendarEventPage; validUntil: EpochMicros }> {
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
    page: pageOf(page, perPage, total, records),
    validUntil,
  };
}

/** One event of the community as the API shows it (JSON text); 404 when there is none. */
export async function getCalendarEvent({ database }: DatabaseDeps, communityId: string, id: string): Promise<string> {
  const row = await selectCalendarEventRow(database.db, communityId, id);
  if (!row) throw eventNotFound();
  const [event] = await renderCalendarEvents(database.db, communityId, [row]);
  if (!event) throw eventNotFound();
  return event;
}

/**
 * The webhook data of an event's row: its record's JSON text as the API answers it, its hosts,
 * speakers and references read in the write's transaction; undefined when the event does not
 * trigger webhooks (nothing is rendered then) or is gone.
 */
export async function eventWebhookData(tx: Tx, communityId: string, row: CalendarEventRow | undefined): Promise<JsonText | undefined> {
  if (!row || !triggersWebhooks(row)) return undefined;
  const [event] = await renderCalendarEvents(tx, communityId, [row]);
  return event === undefined ? undefined : new JsonText(event, { triggers_webhooks: true });
}

/** A registration's webhook data: the event and the attendee; undefined when the event sends none. */
async function registrationWebhookData(
  tx: Tx,
  communityId: string,
  row: CalendarEventRow | undefined,
  attendee: { profile_id: string; chat_user_id: string; personal_join_link: string | null },
): Promise<{ calendar_event: JsonText; attendee: typeof attendee } | undefined> {
  const event = await eventWebhookData(tx, communityId, row);
  return event && { calendar_event: event, attendee };
}

/** What the event writers need. */
export type CalendarEventWriteDeps = StorageDeps;

/** `GET /calendar_events`: a page of the community's events for a validated list query, cached. */
export const readCalendarEventList = cachedRead({
  name: 'calendarEvents.list',
  view: 'events',
  key: (now, query: ListQuery) => eventListKey(query, now),
  render: async (deps, communityId, now, query: ListQuery) => {
    const { page, validUntil } = await listCalendarEventsWithValidity(deps.database, communityId, query, now, deps.counts);
    const { records, ...meta } = page;
    return { body: pagedListEnvelope(meta, records), validUntil };
  },
});

/** `GET /calendar_events/{id}`: one event, cached until the community's events change. */
export const readCalendarEvent = cachedRead({
  name: 'calendarEvents.get',
  view: 'events',
  key: (_now, id: string) => id,
  render: async (deps, communityId, _now, id: string) => ({
    body: dataEnvelope(await getCalendarEvent({ database: deps.database }, communityId, id)),
  }),
});

/** Deletes an event and its child rows in one transaction; 404 when there is none. */
export async function deleteCalendarEvent(deps: CalendarEventWriteDeps, communityId: string, id: string): Promise<{ id: string }> {
  await writeCommunityData(deps, communityId, async (w) => {
    // Rendered before the delete (afterwards there is nothing left to show), and only for a subscriber.
    const deleted = (await w.wanted('calendar_event.deleted'))
      ? await eventWebhookData(w.tx, communityId, await selectCalendarEventRow(w.tx, communityId, id))
      : undefined;
    if (!(await deleteEventRow(w.tx, communityId, id))) throw eventNotFound();
    if (deleted) w.emit('calendar_event.deleted', () => deleted);
    await deleteEventChildren(w.tx, communityId, [id]);
    w.touch('events');
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
 * `calendar_event.registration.updated` is emitted only when the link changed: the same link again
 * writes nothing and sends nothing.
 */
export async function upsertAttendee(
  deps: CalendarEventWriteDeps,
  communityId: string,
  eventId: string,
  body: AttendeeBody,
): Promise<void> {
  const link = joinLinkOf(body.personal_join_link);
  await writeCommunityData(deps, communityId, async (w) => {
    const { tx, now } = w;
    const event = await selectCalendarEventRow(tx, communityId, eventId);
    if (!event) throw eventNotFound();
    const profileId = await selectProfileIdByChatUserId(tx, communityId, body.user.chat_user_id);
    if (!profileId) throw new ApiError('not_found', `No profile with chat_user_id "${body.user.chat_user_id}" in this community.`);
    const added = await insertAttendeeIfAbsent(tx, {
      community_id: communityId,
      event_id: eventId,
      profile_id: profileId,
      personal_join_link: link ?? null,
      now,
    });
    const attendee = { profile_id: profileId, chat_user_id: body.user.chat_user_id, personal_join_link: link ?? null };
    if (added) {
      // The event may have been deleted since it was checked (PostgreSQL): then nothing is kept.
      if (!(await incrementAttendeesCount(tx, communityId, eventId))) throw eventNotFound();
      // attendees_count is part of the event record: cached answers of it must go.
      w.touch('events');
      w.emit('calendar_event.registration.created', async () =>
        registrationWebhookData(tx, communityId, await selectCalendarEventRow(tx, communityId, eventId), attendee),
      );
    } else if (link !== undefined && (await updateAttendeeLink(tx, { communityId, eventId, profileId }, link, now))) {
      // A link changes nothing of the event record: it is rendered from the row read above.
      w.emit('calendar_event.registration.updated', () => registrationWebhookData(tx, communityId, event, attendee));
    }
  });
}
