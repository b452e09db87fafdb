import { sql } from 'kysely';
import type { MigrationDb } from './migration-support.js';

/*
 * The longest event of a (community, status) in one index step. The event list uses it to turn
 * "ends at or after T" into a bounded range on start_at, so that upcoming and date-filtered pages
 * walk calendar_events_start in sort order instead of every past event (see docs/calendar-events.md).
 */

export async function up(db: MigrationDb): Promise<void> {
  await sql`create index calendar_events_duration on calendar_events (community_id, status, (ends_at - start_at))`.execute(db);
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropIndex('calendar_events_duration').ifExists().execute();
}
