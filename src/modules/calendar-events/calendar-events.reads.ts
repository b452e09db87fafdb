import { cachedRead } from '../../caching/cached-read.js';
import type { CountCache } from '../../caching/count-cache.js';
import type { Database, Db, Tx } from '../../db/database.js';
import { notFound } from '../../errors.js';
import { selectRelatedRows } from '../../references/related-rows.js';
import { mentionKeys, referencesOf } from '../../references/resolve-references.js';
import { dataEnvelope, type PageMeta, pagedListEnvelope, pageOf } from '../../schemas/json-text.js';
import { JsonText } from '../../shared/json-text.js';
import type { DatabaseDeps } from '../../shared/service-deps.js';
import { type EpochMicros, endOfTime } from '../../shared/time.js';
import { type CalendarEventRow, eventPersonJson, mentionsOf, renderCalendarEvent, triggersWebhooks } from './calendar-events.records.js';
import { selectCalendarEventRow } from './queries/events.js';
import { countCalendarEvents, selectCalendarEventsPage, selectNextEndingAt } from './queries/list.js';
import { type CalendarEventFilter, filterFromQuery } from './rules/list-filter.js';
import { defaultPerPage, type ListQuery } from './schemas/event.js';

/** One page of events: the paged list envelope, with each record as its JSON text. */
export interface CalendarEventPage extends PageMeta {
  records: string[];
}

const eventNotFound = () => notFound('Calendar event');

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
