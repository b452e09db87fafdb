import { type Kysely, sql } from 'kysely';

/*
 * The longest event of a (community, status) in one index step. The event list uses it to turn
 * "ends at or after T" into a bounded range on start_at, so that upcoming and date-filtered pages
 * walk calendar_events_start in sort order instead of every past event (see docs/calendar-events.md).
 */

// Migrations are frozen in time: they must not depend on the evolving table types.
type AnyDb = Kysely<unknown>;

export async function up(db: AnyDb): Promise<void> {
  await sql`create index calendar_events_duration on calendar_events (community_id, status, (ends_at - start_at))`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex('calendar_events_duration').ifExists().execute();
}
