import { sql } from 'kysely';
import { isPostgres, type MigrationDb } from './migration-support.js';

/*
 * An index on each event's slug (it lives in the stored JSON), so that an event create or a title
 * change finds the slugs already taken without reading every event of the community: that read was
 * 200-400 ms per create at 10k events, linear in the community's size. An expression index, so that
 * every writer of events (import, API, chat sync) keeps it without knowing of it. The query must
 * spell the expression exactly so (src/modules/calendar-events/queries/events.ts, slugOf).
 */

export async function up(db: MigrationDb): Promise<void> {
  const slug = isPostgres(db) ? sql`((doc::json) ->> 'slug')` : sql`json_extract(doc, '$.slug')`;
  await sql`create index calendar_events_slug on calendar_events (community_id, ${slug})`.execute(db);
  // PostgreSQL has no statistics of an expression until the table is analysed, and without them it
  // guesses that a list of 50 candidate slugs matches a quarter of the rows: it then reads every event
  // of the community through another index and parses each one's JSON (seconds per create at 100k).
  // Autovacuum would analyse only after enough of the table changed.
  if (isPostgres(db)) await sql`analyze calendar_events`.execute(db);
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropIndex('calendar_events_slug').ifExists().execute();
}
