import { type Insertable, type RawBuilder, sql } from 'kysely';
import type { Db, Tx } from '../../../db/database.js';
import { preparedQuery, preparedWrite } from '../../../db/prepared-query.js';
import type {
  CalendarEventAttendeesTable,
  CalendarEventFeedsTable,
  CalendarEventPeopleTable,
  CalendarEventTagsTable,
  DB,
} from '../../../db/schema.js';
import type { EpochMicros } from '../../../shared/time.js';
import type { Tag } from '../schemas/event.js';

/** Hosts and speakers of one event, in their stored order, as JSON text (stored profiles, or EventPerson once rendered). */
export interface EventPeople {
  hosts: string[];
  speakers: string[];
}

/*
 * The SQL of an event's child rows: calendar_event_tags, calendar_event_feeds,
 * calendar_event_people and calendar_event_attendees, each keyed by (community_id, event_id, ...).
 */

/** Tables holding an event's child rows. */
const eventChildTables = ['calendar_event_tags', 'calendar_event_feeds', 'calendar_event_people', 'calendar_event_attendees'] as const;

/** Bound parameters per statement: below both engines' limits (SQLite 32766, PostgreSQL 65535). */
const paramsPerStatement = 24_000;

/** Inserts rows in multi-row statements sized to the parameter budget. */
async function insertRows<T extends (typeof eventChildTables)[number]>(
  tx: Tx,
  table: T,
  rows: readonly Insertable<DB[T]>[],
): Promise<void> {
  const columns = rows[0] ? Object.keys(rows[0]).length : 1;
  const perStatement = Math.floor(paramsPerStatement / columns);
  for (let i = 0; i < rows.length; i += perStatement) {
    await tx
      .insertInto(table)
      .values(rows.slice(i, i + perStatement) as Insertable<DB[T]>[])
      .execute();
  }
}

/** The child rows of a set of events, replacing whatever they had. */
export interface EventChildRows {
  tags: Insertable<CalendarEventTagsTable>[];
  feeds: Insertable<CalendarEventFeedsTable>[];
  people: Insertable<CalendarEventPeopleTable>[];
  attendees: Insertable<CalendarEventAttendeesTable>[];
}

/** Inserts child rows in multi-row statements. */
export async function insertEventChildren(tx: Tx, children: EventChildRows): Promise<void> {
  await insertRows(tx, 'calendar_event_tags', children.tags);
  await insertRows(tx, 'calendar_event_feeds', children.feeds);
  await insertRows(tx, 'calendar_event_people', children.people);
  await insertRows(tx, 'calendar_event_attendees', children.attendees);
}

/** Deletes the child rows (tags, feeds, people, attendees) of the given events. */
export async function deleteEventChildren(tx: Tx, communityId: string, eventIds: readonly string[]): Promise<void> {
  if (eventIds.length === 0) return;
  for (const table of eventChildTables) {
    await tx.deleteFrom(table).where('community_id', '=', communityId).where('event_id', 'in', eventIds).execute();
  }
}

/** Deletes an event's tag, feed and people rows (not its attendees), before they are written again. */
export async function deleteEventDescriptors(tx: Tx, communityId: string, eventId: string): Promise<void> {
  for (const table of ['calendar_event_tags', 'calendar_event_feeds', 'calendar_event_people'] as const) {
    await tx.deleteFrom(table).where('community_id', '=', communityId).where('event_id', '=', eventId).execute();
  }
}

/** Rows of people (in stored order) as each event's hosts and speakers, holding `entryOf` of each row. */
function byEventAndRole<R extends { event_id: string; role: string }>(
  rows: readonly R[],
  entryOf: (row: R) => string,
): Map<string, EventPeople> {
  const people = new Map<string, EventPeople>();
  for (const row of rows) {
    let entry = people.get(row.event_id);
    if (!entry) {
      entry = { hosts: [], speakers: [] };
      people.set(row.event_id, entry);
    }
    (row.role === 'host' ? entry.hosts : entry.speakers).push(entryOf(row));
  }
  return people;
}

/**
 * Host and speaker profile ids, in their stored order, of those of the given events that have any
 * (at most a few hundred ids: callers batch). The PATCH, the import's stamps and the export read them.
 */
export async function selectEventPeopleIds(
  db: Db | Tx,
  communityId: string,
  eventIds: readonly string[],
): Promise<Map<string, EventPeople>> {
  if (eventIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('calendar_event_people')
    .select(['event_id', 'role', 'profile_id'])
    .where('community_id', '=', communityId)
    .where('event_id', 'in', [...eventIds])
    .orderBy('event_id')
    .orderBy('role')
    .orderBy('position')
    .execute();
  return byEventAndRole(rows, (row) => row.profile_id);
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
  if (eventIds.length === 0) return new Map();
  return byEventAndRole(await eventPeople.all(db, { communityId, eventIds: [...new Set(eventIds)] }), (row) => row.doc);
}

/**
 * The people part of the PostgreSQL statement of what a page refers to (src/references/related-rows.ts):
 * rows `(part, event_id, role, position, doc, null)` of the hosts and speakers of these events. As the
 * statement's first part it names the columns: part, key, role, rank, doc, id.
 */
export const eventPeopleByEventIdsPart = (part: number, communityId: string, eventIds: readonly string[]): RawBuilder<unknown> =>
  sql`select ${sql.lit(part)} as part, p.event_id as key, p.role as role, p.position::bigint as rank, pr.doc as doc, null::text as id
      from calendar_event_people p
      join profiles pr on pr.community_id = p.community_id and pr.id = p.profile_id
      where p.community_id = ${communityId} and p.event_id = any(${eventIds}::text[])`;

/** An attendee row as the export writes it (instants in epoch µs). */
export interface EventAttendeeRow {
  event_id: string;
  profile_id: string;
  personal_join_link: string | null;
  created_at: EpochMicros;
  updated_at: EpochMicros;
}

/** The attendees of the given events, in no particular order (the export sorts them). */
export async function selectEventAttendees(db: Db | Tx, communityId: string, eventIds: readonly string[]): Promise<EventAttendeeRow[]> {
  if (eventIds.length === 0) return [];
  return db
    .selectFrom('calendar_event_attendees')
    .select(['event_id', 'profile_id', 'personal_join_link', 'created_at', 'updated_at'])
    .where('community_id', '=', communityId)
    .where('event_id', 'in', [...eventIds])
    .execute();
}

/**
 * The stored tag records (as events show them) of those of these ids that some event of the
 * community carries: each from the most recently updated event carrying it (docs/calendar-events.md).
 * One index probe per tag (calendar_event_tags_latest, migration 012): the tag rows keep their
 * event's updated_at, so no event row is read but the one whose record is taken.
 */
export async function selectKnownTags(db: Db | Tx, communityId: string, ids: readonly string[]): Promise<Map<string, Tag>> {
  const found = new Map<string, Tag>();
  if (ids.length === 0) return found;
  // Per tag, its latest event; as subqueries, because SQLite takes no ORDER BY or LIMIT in an arm of a UNION.
  const latest = [...new Set(ids)].map((tagId, i) =>
    db
      .selectFrom(
        db
          .selectFrom('calendar_event_tags')
          .select(['tag_id', 'event_id'])
          .where('community_id', '=', communityId)
          .where('tag_id', '=', tagId)
          .orderBy('event_updated_at', 'desc')
          .orderBy('event_id', 'desc')
          .limit(1)
          .as(`t${i}`),
      )
      .selectAll(),
  );
  const [first, ...rest] = latest as [(typeof latest)[number], ...typeof latest];
  const union = rest.reduce((query, arm) => query.unionAll(arm), first);
  const rows = await db
    .selectFrom(union.as('latest'))
    .innerJoin('calendar_events', (join) =>
      join.on('calendar_events.community_id', '=', communityId).onRef('calendar_events.id', '=', 'latest.event_id'),
    )
    .select(['latest.tag_id', 'calendar_events.doc'])
    .execute();
  for (const row of rows) {
    const tag = (JSON.parse(row.doc) as { tags?: Tag[] }).tags?.find((t) => t.id === row.tag_id);
    if (tag) found.set(row.tag_id, tag);
  }
  return found;
}

// The attendee update's writes are compiled once (preparedWrite): it is the registrations' hot
// path, and a Kysely builder per call costs more than SQLite's statement.
const insertAttendee = preparedWrite(
  (tx: Tx, p: { community_id: string; event_id: string; profile_id: string; personal_join_link: string | null; now: EpochMicros }) =>
    tx
      .insertInto('calendar_event_attendees')
      .values({
        community_id: p.community_id,
        event_id: p.event_id,
        profile_id: p.profile_id,
        personal_join_link: p.personal_join_link,
        created_at: p.now,
        updated_at: p.now,
      })
      .onConflict((oc) => oc.columns(['community_id', 'event_id', 'profile_id']).doNothing()),
);

/** Adds the attendee unless already there; true when a row was added. */
export async function insertAttendeeIfAbsent(
  tx: Tx,
  row: { community_id: string; event_id: string; profile_id: string; personal_join_link: string | null; now: EpochMicros },
): Promise<boolean> {
  return (await insertAttendee.execute(tx, row)) > 0;
}

const updateLink = preparedWrite(
  (tx: Tx, p: { communityId: string; eventId: string; profileId: string; link: string | null; now: EpochMicros }) =>
    tx
      .updateTable('calendar_event_attendees')
      .set({ personal_join_link: p.link, updated_at: p.now })
      .where('community_id', '=', p.communityId)
      .where('event_id', '=', p.eventId)
      .where('profile_id', '=', p.profileId)
      .where('personal_join_link', 'is distinct from', p.link),
);

/** Sets an existing attendee's personal join link; false when it already was that link (nothing written). */
export async function updateAttendeeLink(
  tx: Tx,
  key: { communityId: string; eventId: string; profileId: string },
  link: string | null,
  now: EpochMicros,
): Promise<boolean> {
  return (await updateLink.execute(tx, { ...key, link, now })) > 0;
}
