import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { communityTag, searchDocument } from '../../shared/search-text.js';
import { atomically, isPostgres, type MigrationDb } from './migration-support.js';

/*
 * Search over posts (docs/search.md). `post_search` holds one entry per post: what a search filters
 * and orders by (feed, author, Home, latest activity) and the hash of the indexed text. The index is
 * per engine: on SQLite a contentless FTS5 table (rows deletable: contentless_delete) whose rowid is
 * the entry's doc_id; on PostgreSQL a tsvector column with a GIN index. Both are fed the tokens of
 * src/shared/search-text.ts (normalised in JavaScript: no extension, no superuser). The posts stored
 * before are indexed here, a thousand per read in key order.
 */

const postsPerRead = 1000;

export async function up(db: MigrationDb): Promise<void> {
  const postgres = isPostgres(db);
  await atomically(db, async (tx) => {
    let table = tx.schema.createTable('post_search');
    if (!postgres) table = table.addColumn('doc_id', 'integer', (c) => c.primaryKey());
    table = table
      .addColumn('community_id', 'text', (c) => c.notNull())
      .addColumn('post_id', 'text', (c) => c.notNull())
      .addColumn('feed_id', 'text', (c) => c.notNull())
      .addColumn('author_profile_id', 'text')
      .addColumn('author_name', 'text', (c) => c.notNull())
      .addColumn('in_home', 'integer', (c) => c.notNull())
      .addColumn('latest_activity_at', 'bigint', (c) => c.notNull())
      .addColumn('source_hash', 'text', (c) => c.notNull());
    if (postgres) {
      await table
        .addColumn('terms', sql`tsvector`)
        .addPrimaryKeyConstraint('post_search_pk', ['community_id', 'post_id'] as never)
        .execute();
      await sql`create index post_search_terms on post_search using gin (terms)`.execute(tx);
    } else {
      await table.execute();
      await tx.schema.createIndex('post_search_post').unique().on('post_search').columns(['community_id', 'post_id']).execute();
      await sql`create virtual table post_search_fts using fts5(
        title, author, body, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2')`.execute(tx);
    }
    await tx.schema.createIndex('post_search_author').on('post_search').columns(['community_id', 'author_profile_id']).execute();
    await indexStoredPosts(tx, postgres);
  });
  if (postgres) await sql`analyze post_search`.execute(db);
}

interface StoredPost {
  community_id: string;
  id: string;
  feed_id: string;
  author_profile_id: string | null;
  in_home: number;
  latest_activity_at: number | string;
  doc: string;
  author_doc: string | null;
}

async function indexStoredPosts(tx: MigrationDb, postgres: boolean): Promise<void> {
  let after = { community_id: '', id: '' };
  let docId = 0;
  for (;;) {
    const { rows } = await sql<StoredPost>`
      select p.community_id, p.id, p.feed_id, p.author_profile_id, p.in_home, p.latest_activity_at, p.doc, a.doc as author_doc
      from posts p left join profiles a on a.community_id = p.community_id and a.id = p.author_profile_id
      where p.community_id > ${after.community_id} or (p.community_id = ${after.community_id} and p.id > ${after.id})
      order by p.community_id, p.id limit ${postsPerRead}`.execute(tx);
    for (const row of rows) {
      const doc = JSON.parse(row.doc) as { title?: string; body_plaintext?: string };
      const author = row.author_doc ? String((JSON.parse(row.author_doc) as { preferred_name?: unknown }).preferred_name ?? '') : '';
      const source = { title: doc.title ?? '', body: doc.body_plaintext ?? '', author };
      const document = searchDocument(communityTag(row.community_id), source, postgres);
      const hash = createHash('sha1').update(`${source.title}\u0000${source.body}\u0000${source.author}`).digest('base64').slice(0, 20);
      const columns = sql`${row.community_id}, ${row.id}, ${row.feed_id}, ${row.author_profile_id}, ${author}, ${row.in_home}, ${Number(row.latest_activity_at)}, ${hash}`;
      if (postgres) {
        await sql`insert into post_search (community_id, post_id, feed_id, author_profile_id, author_name, in_home, latest_activity_at, source_hash, terms)
          values (${columns}, ${document.tsvector}::tsvector)`.execute(tx);
      } else {
        docId++;
        await sql`insert into post_search (doc_id, community_id, post_id, feed_id, author_profile_id, author_name, in_home, latest_activity_at, source_hash)
          values (${docId}, ${columns})`.execute(tx);
        await sql`insert into post_search_fts (rowid, title, author, body) values (${docId}, ${document.title}, ${document.author}, ${document.body})`.execute(
          tx,
        );
      }
    }
    const last = rows.at(-1);
    if (!last || rows.length < postsPerRead) return;
    after = { community_id: last.community_id, id: last.id };
  }
}

export async function down(db: MigrationDb): Promise<void> {
  if (!isPostgres(db)) await sql`drop table if exists post_search_fts`.execute(db);
  await db.schema.dropTable('post_search').ifExists().execute();
}
