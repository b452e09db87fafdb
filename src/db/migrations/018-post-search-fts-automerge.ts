import { sql } from 'kysely';
import { isPostgres, type MigrationDb } from './migration-support.js';

/*
 * SQLite: FTS5 merges the search index's segments eight at a time instead of four (docs/search.md,
 * "Figures", Import): each posting is rewritten on fewer levels as the index grows, a fifth of the
 * FTS5 table's cost on the import of 100k posts, for up to twice as many segments per level on a
 * read (measured: no difference in a search's cost). A setting of the table (a row of its config),
 * so instant on any database: the segments already written are left as they are. PostgreSQL: nothing.
 */

export async function up(db: MigrationDb): Promise<void> {
  // FTS5 takes a special command's value as a literal only (a bound one is refused).
  if (!isPostgres(db)) await sql`insert into post_search_fts (post_search_fts, rank) values ('automerge', 8)`.execute(db);
}

export async function down(db: MigrationDb): Promise<void> {
  if (!isPostgres(db)) await sql`insert into post_search_fts (post_search_fts, rank) values ('automerge', 4)`.execute(db);
}
