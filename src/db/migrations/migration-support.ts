import { type Kysely, PostgresAdapter, sql } from 'kysely';

/*
 * What migrations share. Migrations are frozen in time: they must not depend on the evolving table
 * types or on the application's helpers, so they see the database untyped, and what they share lives
 * here, where it only ever grows: a helper a migration uses is never changed (a new need is a new helper).
 */

/** The database as a migration sees it: no table types (Kysely's own `unknown` schema). */
export type MigrationDb = Kysely<unknown>;

/** Runs `work` in one transaction (SQLite's migrator runs without one; PostgreSQL's already has one). */
export async function atomically(db: MigrationDb, work: (db: MigrationDb) => Promise<void>): Promise<void> {
  if (db.isTransaction) return work(db);
  await db.transaction().execute(work);
}

type Doc = Record<string, unknown>;
const rowsPerRead = 1000;

/**
 * Rewrites the JSON `doc` of every row of a table keyed by (community_id, id), a thousand rows per
 * read in key order; `rewrite` returns the new doc, or undefined to leave the row as it is.
 */
export async function rewriteDocs(
  db: MigrationDb,
  table: 'calendar_events' | 'posts',
  rewrite: (doc: Doc) => Doc | undefined,
): Promise<void> {
  let after = { community_id: '', id: '' };
  for (;;) {
    const { rows } = await sql<{ community_id: string; id: string; doc: string }>`
      select community_id, id, doc from ${sql.table(table)}
      where community_id > ${after.community_id} or (community_id = ${after.community_id} and id > ${after.id})
      order by community_id, id limit ${rowsPerRead}`.execute(db);
    for (const row of rows) {
      const next = rewrite(JSON.parse(row.doc) as Doc);
      if (next === undefined) continue;
      await sql`update ${sql.table(table)} set doc = ${JSON.stringify(next)} where community_id = ${row.community_id} and id = ${row.id}`.execute(
        db,
      );
    }
    const last = rows.at(-1);
    if (!last || rows.length < rowsPerRead) return;
    after = { community_id: last.community_id, id: last.id };
  }
}

/** Whether the migration runs on PostgreSQL (for the rare column type that differs between engines). */
export const isPostgres = (db: MigrationDb): boolean => db.getExecutor().adapter instanceof PostgresAdapter;
