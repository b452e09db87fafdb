import { sql } from 'kysely';
import { atomically, type MigrationDb } from './migration-support.js';

/*
 * Instants of community data go from epoch milliseconds to epoch microseconds (issue 17: the
 * hosted product keeps and answers microseconds). The columns stay bigint: every instant of years
 * 1700-2250 in µs is below 2^53, so it is exact in SQLite's integer, in PostgreSQL's int8 and in a
 * JavaScript number alike. Instants held inside stored JSON (a profile's created_at, an event's
 * tags[].created_at) are re-spelled the way answers now spell them (`2026-11-21T18:00:00+00:00`).
 * api_keys and idempotency_keys are operational and stay in milliseconds (the clock's unit).
 *
 * PostgreSQL runs a migration in a transaction; SQLite's migrator does not, so the work is wrapped
 * in one here: a failure leaves the data as it was.
 */

const instantColumns: Record<string, readonly string[]> = {
  communities: ['created_at'],
  chat_connections: ['connected_at'],
  profiles: ['created_at', 'updated_at'],
  members: ['created_at', 'updated_at'],
  chat_invitations: ['created_at', 'updated_at'],
  groups: ['created_at', 'updated_at'],
  group_members: ['created_at'],
  feeds: ['created_at', 'updated_at'],
  posts: ['content_created_at', 'latest_activity_at', 'created_at', 'updated_at'],
  calendar_events: ['start_at', 'end_at', 'ends_at', 'created_at', 'updated_at'],
  calendar_event_attendees: ['created_at', 'updated_at'],
};

const rowsPerRead = 1000;

/** PostgreSQL's JSON spelling of an epoch-µs instant (as src/shared/timestamps.ts was written then). */
function jsonSpelling(us: number): string {
  const seconds = Math.floor(us / 1e6);
  const micros = us - seconds * 1e6;
  const fraction = micros === 0 ? '' : `.${String(micros).padStart(6, '0').replace(/0+$/, '')}`;
  return `${new Date(seconds * 1000).toISOString().slice(0, 19)}${fraction}+00:00`;
}

/** Calls `rewrite` on the doc of every row of a table (in primary key order), writing back what changed. */
async function rewriteDocs(
  db: MigrationDb,
  table: 'profiles' | 'calendar_events',
  rewrite: (doc: Record<string, unknown>, createdAt: number) => Record<string, unknown> | undefined,
  where: ReturnType<typeof sql>,
): Promise<void> {
  let after = { community_id: '', id: '' };
  for (;;) {
    const { rows } = await sql<{ community_id: string; id: string; doc: string; created_at: number | string }>`
      select community_id, id, doc, created_at from ${sql.table(table)}
      where (community_id > ${after.community_id} or (community_id = ${after.community_id} and id > ${after.id})) and ${where}
      order by community_id, id limit ${rowsPerRead}`.execute(db);
    for (const row of rows) {
      const next = rewrite(JSON.parse(row.doc) as Record<string, unknown>, Number(row.created_at));
      if (next === undefined) continue;
      await sql`update ${sql.table(table)} set doc = ${JSON.stringify(next)}
        where community_id = ${row.community_id} and id = ${row.id}`.execute(db);
    }
    const last = rows.at(-1);
    if (!last || rows.length < rowsPerRead) return;
    after = { community_id: last.community_id, id: last.id };
  }
}

/**
 * Re-spells the instants inside stored JSON: a profile's from its own (already scaled) column, a
 * tag's from its text. `spell` and `instantOf` work in the unit the columns are being moved to.
 */
async function respellDocs(db: MigrationDb, spell: (instant: number) => string, instantOf: (text: string) => number): Promise<void> {
  await rewriteDocs(db, 'profiles', (doc, createdAt) => ({ ...doc, created_at: spell(createdAt) }), sql`1 = 1`);
  await rewriteDocs(
    db,
    'calendar_events',
    (doc) => {
      const tags = doc.tags as { created_at: string }[] | undefined;
      if (!Array.isArray(tags) || tags.length === 0) return undefined;
      return { ...doc, tags: tags.map((tag) => ({ ...tag, created_at: spell(instantOf(tag.created_at)) })) };
    },
    // Only events with tags hold an instant in their doc; the import writes `tags` as its last member.
    sql`doc not like ${'%"tags":[]}'}`,
  );
}

async function scaleInstants(db: MigrationDb, factor: 'multiply' | 'divide'): Promise<void> {
  for (const [table, columns] of Object.entries(instantColumns)) {
    const assignments = sql.join(
      columns.map((column) =>
        factor === 'multiply' ? sql`${sql.ref(column)} = ${sql.ref(column)} * 1000` : sql`${sql.ref(column)} = ${sql.ref(column)} / 1000`,
      ),
    );
    await sql`update ${sql.table(table)} set ${assignments}`.execute(db);
  }
}

/** Runs `work` in a transaction unless the migrator already opened one (PostgreSQL). */
export async function up(db: MigrationDb): Promise<void> {
  await atomically(db, async (tx) => {
    await scaleInstants(tx, 'multiply');
    await respellDocs(tx, jsonSpelling, (text) => Date.parse(text) * 1000);
  });
}

export async function down(db: MigrationDb): Promise<void> {
  await atomically(db, async (tx) => {
    // Sub-millisecond digits are lost on the way down (floor division on both engines for instants after 1970).
    await scaleInstants(tx, 'divide');
    await respellDocs(
      tx,
      (ms) => new Date(ms).toISOString(),
      (text) => Date.parse(text),
    );
  });
}
