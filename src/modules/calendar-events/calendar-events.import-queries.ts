import type { Insertable } from 'kysely';
import { selectInBatches } from '../../db/batches.js';
import type { Tx } from '../../db/database.js';
import type {
  CalendarEventAttendeesTable,
  CalendarEventFeedsTable,
  CalendarEventPeopleTable,
  CalendarEventsTable,
  CalendarEventTagsTable,
  DB,
} from '../../db/schema.js';
import type { EpochMicros } from '../../shared/time.js';

/** Bound parameters per statement: below both engines' limits (SQLite 32766, PostgreSQL 65535). */
const paramsPerStatement = 24_000;
const idsPerStatement = 500;

/** Inserts rows in multi-row statements sized to the parameter budget. */
async function insertRows<T extends 'calendar_event_tags' | 'calendar_event_feeds' | 'calendar_event_people' | 'calendar_event_attendees'>(
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

/** What the import compares against to keep timestamps of unchanged events. */
export interface StoredEventState {
  doc: string;
  status: string;
  start_at: EpochMicros;
  end_at: EpochMicros | null;
  publish_to_site: number;
  is_unlisted: number;
  created_at: EpochMicros;
  updated_at: EpochMicros;
  /** `role:profile_id` of hosts then speakers, in order. */
  people: string[];
}

/** Most ids one lookup takes. */
export const idsPerLookup = idsPerStatement;

/** The stored state of those of at most `idsPerLookup` events that already exist. */
export async function selectStoredEventStates(tx: Tx, communityId: string, ids: readonly string[]): Promise<Map<string, StoredEventState>> {
  const states = new Map<string, StoredEventState>();
  const rows = await tx
    .selectFrom('calendar_events')
    .select(['id', 'doc', 'status', 'start_at', 'end_at', 'publish_to_site', 'is_unlisted', 'created_at', 'updated_at'])
    .where('community_id', '=', communityId)
    .where('id', 'in', ids)
    .execute();
  if (rows.length === 0) return states;
  for (const { id, ...state } of rows) states.set(id, { ...state, people: [] });
  const people = await tx
    .selectFrom('calendar_event_people')
    .select(['event_id', 'role', 'profile_id'])
    .where('community_id', '=', communityId)
    .where('event_id', 'in', [...states.keys()])
    .orderBy('event_id')
    .orderBy('role')
    .orderBy('position')
    .execute();
  for (const person of people) states.get(person.event_id)?.people.push(`${person.role}:${person.profile_id}`);
  return states;
}

/** Which of these ids are feeds of the community (published_to reference checks). */
export async function selectExistingFeedIds(tx: Tx, communityId: string, ids: readonly string[]): Promise<Set<string>> {
  const rows = await selectInBatches(ids, (batch) =>
    tx.selectFrom('feeds').select('id').where('community_id', '=', communityId).where('id', 'in', batch).execute(),
  );
  return new Set(rows.map((row) => row.id));
}

/** Inserts or replaces event rows by (community_id, id). */
export async function upsertEventRows(tx: Tx, rows: readonly Insertable<CalendarEventsTable>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += idsPerStatement) {
    await tx
      .insertInto('calendar_events')
      .values(rows.slice(i, i + idsPerStatement))
      .onConflict((oc) =>
        oc.columns(['community_id', 'id']).doUpdateSet((eb) => ({
          status: eb.ref('excluded.status'),
          start_at: eb.ref('excluded.start_at'),
          end_at: eb.ref('excluded.end_at'),
          ends_at: eb.ref('excluded.ends_at'),
          publish_to_site: eb.ref('excluded.publish_to_site'),
          is_unlisted: eb.ref('excluded.is_unlisted'),
          attendees_count: eb.ref('excluded.attendees_count'),
          doc: eb.ref('excluded.doc'),
          mentions: eb.ref('excluded.mentions'),
          created_at: eb.ref('excluded.created_at'),
          updated_at: eb.ref('excluded.updated_at'),
        })),
      )
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
