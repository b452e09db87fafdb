import { sql } from 'kysely';
import { isPostgres, type MigrationDb } from './migration-support.js';

/*
 * An index on each event's slug (it lives in the stored JSON), so that an event create or a title
 * change finds the slugs already taken without reading every event of the community: that read was
 * 200-400 ms per create at 10k events, linear in the community's size. An expression index, so that
 * every writer of events (import, API, chat sync) keeps it without knowing of it. The query must
 * spell the expression exactly so (calendar-events.write-queries.ts, slugOf).
 */

export async function up(db: MigrationDb): Promise<void> {
  const slug = isPostgres(db) ? sql`((doc::json) ->> 'slug')` : sql`json_extract(doc, '$.slug')`;
  await sql`create index calendar_events_slug on calendar_events (community_id, ${slug})`.execute(db);
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropIndex('calendar_events_slug').ifExists().execute();
}
