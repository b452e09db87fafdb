import { type Insertable, PostgresAdapter, type Selectable, sql } from 'kysely';
import type { Db, Engine, Tx } from '../../../db/database.js';
import { orderedRows } from '../../../db/ordered-rows.js';
import { preparedQuery } from '../../../db/prepared-query.js';
import type { CalendarEventsTable } from '../../../db/schema.js';
import type { Mentions } from '../../../rich-text/extract-mentions.js';
import type { RichTextBlock } from '../../../rich-text/rich-text.schemas.js';
import type { EpochMicros } from '../../../shared/time.js';
import type { PublishedTo, Reminder, Tag } from '../schemas/event.js';
import { selectEventPeopleIds } from './children.js';

/* The SQL of calendar_events rows, one event or a batch of the import (the lists: ./list.ts). */

/**
 * The stored fields of an event that are neither columns nor derived: the `doc` JSON. Columns
 * (status, dates, flags, counts, timestamps) are the only source of what they hold.
 */
export interface CalendarEventDoc {
  title: string;
  description_chat_blocks: RichTextBlock[] | null;
  recap_chat_blocks: RichTextBlock[] | null;
  allow_public_guest_list: boolean;
  enable_registration_button: boolean;
  show_end_date: boolean;
  external_speakers: string | null;
  link: string | null;
  location: string;
  partner_event_id: string | null;
  triggers_webhooks: boolean;
  webhook_custom_metadata: string | null;
  recording_link: string | null;
  slug: string;
  use_registration_btn_as_link: boolean;
  cover_image_url: string;
  published_to: PublishedTo[];
  tags: Tag[];
  reminders_config: Reminder[];
}

/** The `mentions` JSON: what the description and the recap blocks refer to. */
export interface CalendarEventMentions {
  description: Mentions;
  recap: Mentions;
}

/** A calendar_events row as read for responses. */
export type CalendarEventRow = Pick<
  Selectable<CalendarEventsTable>,
  | 'id'
  | 'status'
  | 'start_at'
  | 'end_at'
  | 'publish_to_site'
  | 'is_unlisted'
  | 'attendees_count'
  | 'doc'
  | 'mentions'
  | 'created_at'
  | 'updated_at'
>;

/** Columns selected for CalendarEventRow. */
export const eventRowColumns = [
  'id',
  'status',
  'start_at',
  'end_at',
  'publish_to_site',
  'is_unlisted',
  'attendees_count',
  'doc',
  'mentions',
  'created_at',
  'updated_at',
] as const;

const eventRow = preparedQuery((db, p: { communityId: string; id: string }) =>
  db.selectFrom('calendar_events').select(eventRowColumns).where('community_id', '=', p.communityId).where('id', '=', p.id),
);

/** One event of the community, or undefined. */
export async function selectCalendarEventRow(db: Db | Tx, communityId: string, id: string): Promise<CalendarEventRow | undefined> {
  return eventRow.first(db, { communityId, id });
}

/** Inserts a new event row. */
export async function insertEventRow(tx: Tx, row: Insertable<CalendarEventsTable>): Promise<void> {
  await tx.insertInto('calendar_events').values(row).execute();
}

/** Replaces an event's stored fields (everything but its id, attendees and created_at). */
export async function updateEventRow(
  tx: Tx,
  communityId: string,
  id: string,
  row: Pick<
    Insertable<CalendarEventsTable>,
    'status' | 'start_at' | 'end_at' | 'ends_at' | 'publish_to_site' | 'is_unlisted' | 'doc' | 'mentions' | 'updated_at'
  >,
): Promise<void> {
  await tx.updateTable('calendar_events').set(row).where('community_id', '=', communityId).where('id', '=', id).execute();
}

/** Deletes an event row; answers its title, undefined when the community has no such event. Call inside a transaction. */
export async function deleteEventRow(tx: Tx, communityId: string, id: string): Promise<{ title: string } | undefined> {
  // The doc comes back for the title the activity log names the deleted event by (no statement of its own).
  const row = await tx
    .deleteFrom('calendar_events')
    .where('community_id', '=', communityId)
    .where('id', '=', id)
    .returning('doc')
    .executeTakeFirst();
  return row && { title: String((JSON.parse(row.doc) as { title?: unknown }).title ?? '') };
}

/** Adds one to an event's attendees_count; false when the event is gone. */
export async function incrementAttendeesCount(tx: Tx, communityId: string, eventId: string): Promise<boolean> {
  const result = await tx
    .updateTable('calendar_events')
    .set((eb) => ({ attendees_count: eb('attendees_count', '+', 1) }))
    .where('community_id', '=', communityId)
    .where('id', '=', eventId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * An event's slug (it lives in the stored JSON), spelled exactly as the index calendar_events_slug
 * (migration 011) is built, so that the lookup walks the index instead of every event.
 */
const slugOf = (db: Db | Tx) =>
  db.getExecutor().adapter instanceof PostgresAdapter ? sql<string>`((doc::json) ->> 'slug')` : sql<string>`json_extract(doc, '$.slug')`;

/** The query of selectTakenSlugs (exported so tests can EXPLAIN exactly what it runs). */
export function takenSlugsQuery(db: Db | Tx, communityId: string, slugs: readonly string[]) {
  return db
    .selectFrom('calendar_events')
    .select(['id', slugOf(db).as('slug')])
    .where('community_id', '=', communityId)
    .where(slugOf(db), 'in', [...slugs]);
}

/** Which of these slugs events of the community hold, and which event holds each. */
export async function selectTakenSlugs(db: Db | Tx, communityId: string, slugs: readonly string[]): Promise<Map<string, string>> {
  const rows = await takenSlugsQuery(db, communityId, slugs).execute();
  return new Map(rows.map((row) => [row.slug, row.id]));
}

/** Ids per statement of the import's reads and upserts. */
const idsPerStatement = 500;

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
  const people = await selectEventPeopleIds(tx, communityId, [...states.keys()]);
  for (const [eventId, { hosts, speakers }] of people) {
    states.get(eventId)?.people.push(...hosts.map((id) => `host:${id}`), ...speakers.map((id) => `speaker:${id}`));
  }
  return states;
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

/** The community's events in byte order of id, a batch at a time (the export). */
export function eventRowsInIdOrder(tx: Db, engine: Engine, communityId: string) {
  return orderedRows(tx, engine, 'calendar_events', communityId, (q) =>
    q.select(['id', 'status', 'start_at', 'end_at', 'publish_to_site', 'is_unlisted', 'doc', 'created_at', 'updated_at']),
  );
}
