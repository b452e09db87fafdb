import { sql } from 'kysely';
import { atomically, isPostgres, type MigrationDb } from './migration-support.js';

/*
 * The member list's `q` on a substring index (docs/members.md, "How `q` is indexed"), built here for
 * the members already stored. The searched text is still members.search_text (migration 019: folded
 * full name, preferred name and email, one a line); each engine indexes its trigrams:
 *
 * - SQLite: `member_search`, one row per member (doc_id, an INTEGER PRIMARY KEY, is the member's
 *   rowid in the FTS5 table; a member's own rowid is not stable across a VACUUM), with what the list
 *   filters and orders by (state, name_sort, created_at), and `member_search_fts`, a contentless FTS5
 *   table of search_text under the `trigram` tokenizer (case_sensitive: the text is folded already).
 *   Both are written by members.queries.ts in the transaction of every member write.
 * - PostgreSQL: a GIN index of search_text with pg_trgm's `gin_trgm_ops`, which serves the very
 *   `LIKE '%...%'` the list asks. pg_trgm is a trusted extension (PostgreSQL 13+): a user with CREATE
 *   on the database may install it. It is created in `public` (the first schema of the search path may
 *   be a tenant's own, dropped with it); when it is installed already, wherever that is, it is used.
 *   `fastupdate = off`: without it new entries wait in the index's pending list until a vacuum, and
 *   after an import the planner reads the whole table rather than that list (measured: a search at
 *   100k members 140-240 ms before the next vacuum, 25-35 ms with it off); member writes are few.
 */

export async function up(db: MigrationDb): Promise<void> {
  if (isPostgres(db)) {
    await atomically(db, async (tx) => {
      // Concurrent migrations of several schemas of one database would race on CREATE EXTENSION.
      await sql`select pg_advisory_xact_lock(hashtext('community-admin pg_trgm'))`.execute(tx);
      await sql`create extension if not exists pg_trgm with schema public`.execute(tx);
      const { rows } = await sql<{ schema: string }>`
        select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace
        where e.extname = 'pg_trgm'`.execute(tx);
      const schema = rows[0]?.schema ?? 'public';
      await sql`create index members_search_trgm on members using gin (search_text ${sql.id(schema, 'gin_trgm_ops')}) with (fastupdate = off)`.execute(
        tx,
      );
    });
    await sql`analyze members`.execute(db);
    return;
  }
  await atomically(db, async (tx) => {
    await sql`create table member_search (
      doc_id integer primary key,
      community_id text not null,
      member_id text not null,
      state text not null,
      name_sort text not null,
      created_at bigint not null)`.execute(tx);
    await sql`create unique index member_search_member on member_search (community_id, member_id)`.execute(tx);
    await sql`create virtual table member_search_fts using fts5(
      search_text, content='', contentless_delete=1, tokenize='trigram case_sensitive 1')`.execute(tx);
    await sql`insert into member_search (community_id, member_id, state, name_sort, created_at)
      select community_id, id, state, name_sort, created_at from members order by community_id, id`.execute(tx);
    await sql`insert into member_search_fts (rowid, search_text)
      select s.doc_id, m.search_text from member_search s
      join members m on m.community_id = s.community_id and m.id = s.member_id`.execute(tx);
  });
}

export async function down(db: MigrationDb): Promise<void> {
  if (isPostgres(db)) {
    // The extension stays: other schemas of the database may use it.
    await sql`drop index if exists members_search_trgm`.execute(db);
    return;
  }
  await sql`drop table if exists member_search_fts`.execute(db);
  await sql`drop table if exists member_search`.execute(db);
}
