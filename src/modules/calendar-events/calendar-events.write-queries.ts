import { type Insertable, PostgresAdapter, sql } from 'kysely';
import type { Db, Tx } from '../../db/database.js';
import type { CalendarEventsTable } from '../../db/schema.js';
import type { Tag } from './calendar-events.schemas.js';

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

/** Host and speaker profile ids of an event, in order. */
export async function selectEventPeopleIds(
  db: Db | Tx,
  communityId: string,
  eventId: string,
): Promise<{ hosts: string[]; speakers: string[] }> {
  const rows = await db
    .selectFrom('calendar_event_people')
    .select(['role', 'profile_id'])
    .where('community_id', '=', communityId)
    .where('event_id', '=', eventId)
    .orderBy('role')
    .orderBy('position')
    .execute();
  return {
    hosts: rows.filter((r) => r.role === 'host').map((r) => r.profile_id),
    speakers: rows.filter((r) => r.role === 'speaker').map((r) => r.profile_id),
  };
}

/** The feed bound to each of these chat channels (the oldest when several are). */
export async function selectFeedsByChannel(db: Db | Tx, communityId: string, channelIds: readonly string[]): Promise<Map<string, string>> {
  const feeds = new Map<string, string>();
  if (channelIds.length === 0) return feeds;
  const rows = await db
    .selectFrom('feeds')
    .select(['id', 'chat_channel_id'])
    .where('community_id', '=', communityId)
    .where('chat_channel_id', 'in', [...channelIds])
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  for (const row of rows) if (row.chat_channel_id && !feeds.has(row.chat_channel_id)) feeds.set(row.chat_channel_id, row.id);
  return feeds;
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

/** Deletes an event's tag, feed and people rows (not its attendees), before they are written again. */
export async function deleteEventDescriptors(tx: Tx, communityId: string, eventId: string): Promise<void> {
  for (const table of ['calendar_event_tags', 'calendar_event_feeds', 'calendar_event_people'] as const) {
    await tx.deleteFrom(table).where('community_id', '=', communityId).where('event_id', '=', eventId).execute();
  }
}
