import { createHash } from 'node:crypto';
import { PostgresAdapter, type RawBuilder, sql } from 'kysely';
import { batchesOf } from '../../../db/batches.js';
import type { Db, Tx } from '../../../db/database.js';
import type { Flag } from '../../../db/schema.js';
import { communityTag, fieldTokenLimits, searchDocument, tokensOf } from '../../../shared/search-text.js';
import type { EpochMicros } from '../../../shared/time.js';
import { selectProfileJsonByIds } from '../../profiles/profiles.queries.js';

/*
 * The search index, kept by the posts' own query functions in the writer's transaction (every writer
 * of posts goes through them: import, chat sync, seed), so that a search sees exactly what the lists
 * see. Knows nothing of the posts module (which calls it): it reads the posts and profiles rows it
 * needs itself.
 */

/** The columns of a post row the index needs (its `doc` is the stored JSON with title and body_plaintext). */
export interface IndexablePost {
  id: string;
  feed_id: string;
  author_profile_id: string | null;
  in_home: Flag;
  latest_activity_at: EpochMicros;
  doc: string;
}

/** The searchable fields of a post's doc. */
export interface SearchableText {
  title?: string;
  body_plaintext?: string;
}

const isPostgres = (db: Db | Tx): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

// The fields given one by one: the same bytes as their joined text, without copying it.
const hashOf = (title: string, body: string, author: string): string =>
  createHash('sha1').update(title).update('\u0000').update(body).update('\u0000').update(author).digest('base64').slice(0, 20);

/** The author name indexed for a profile: its preferred name, from its stored JSON. */
export const indexedAuthorName = (profileDoc: string): string =>
  String((JSON.parse(profileDoc) as { preferred_name?: unknown }).preferred_name ?? '');

/** The authors' preferred names by profile id (read through the profiles' home), into `names` where missing. */
async function readAuthorNames(db: Db | Tx, communityId: string, ids: readonly string[], names: Map<string, string>): Promise<void> {
  const docs = await selectProfileJsonByIds(
    db,
    communityId,
    ids.filter((id) => !names.has(id)),
  );
  for (const [id, doc] of docs) names.set(id, indexedAuthorName(doc));
}

/** What a writer already knows of the posts it indexes. */
export interface IndexHints {
  /** Their title and body by id, when the caller has them parsed (else read from `doc`). */
  texts?: ReadonlyMap<string, SearchableText>;
  /** Posts the writer has just created: they have no entry, so none is looked up (a tenth of the index's cost on an import). */
  created?: ReadonlySet<string>;
  /**
   * Authors' names already read in this write, filled as more are: a writer of many batches (the
   * import) reads each author once, not once per batch. Only for a write that changes no profile.
   */
  authorNames?: Map<string, string>;
}

/** Indexes posts as they are now stored (new ones, and changed ones again); an unchanged text is not indexed twice. */
export async function indexPosts(tx: Tx, communityId: string, posts: readonly IndexablePost[], hints: IndexHints = {}): Promise<void> {
  if (posts.length === 0) return;
  const names = hints.authorNames ?? new Map<string, string>();
  await readAuthorNames(
    tx,
    communityId,
    posts.flatMap((post) => (post.author_profile_id ? [post.author_profile_id] : [])),
    names,
  );
  for (const batch of batchesOf(posts)) await indexBatch(tx, communityId, batch, names, hints);
}

/** The stored text hashes of the batch's posts that may have an entry. */
async function storedHashes(tx: Tx, communityId: string, posts: readonly IndexablePost[], created?: ReadonlySet<string>) {
  const ids = posts.flatMap((post) => (created?.has(post.id) ? [] : [post.id]));
  if (ids.length === 0) return new Map<string, string>();
  const rows = await tx
    .selectFrom('post_search')
    .select(['post_id', 'source_hash'])
    .where('community_id', '=', communityId)
    .where('post_id', 'in', ids)
    .execute();
  return new Map(rows.map((row) => [row.post_id, row.source_hash]));
}

async function indexBatch(
  tx: Tx,
  communityId: string,
  posts: readonly IndexablePost[],
  names: Map<string, string>,
  { texts, created }: IndexHints,
): Promise<void> {
  const postgres = isPostgres(tx);
  const stored = await storedHashes(tx, communityId, posts, created);
  // An entry written by this batch's upsert gets a doc_id above every existing one (SQLite's rowid
  // is the largest plus one); one at or below it was there before, whatever the caller said.
  const lastDocId = postgres ? 0 : await lastDocIdOf(tx);
  const tag = communityTag(communityId);
  const changed = new Map<string, ReturnType<typeof searchDocument>>();
  const rows = posts.map((post) => {
    const doc = texts?.get(post.id) ?? (JSON.parse(post.doc) as SearchableText);
    const source = {
      title: doc.title ?? '',
      body: doc.body_plaintext ?? '',
      author: names.get(post.author_profile_id ?? '') ?? '',
    };
    const source_hash = hashOf(source.title, source.body, source.author);
    const document = stored.get(post.id) === source_hash ? undefined : searchDocument(tag, source, postgres);
    if (document) changed.set(post.id, document);
    return {
      community_id: communityId,
      post_id: post.id,
      feed_id: post.feed_id,
      author_profile_id: post.author_profile_id,
      author_name: source.author,
      in_home: post.in_home,
      latest_activity_at: post.latest_activity_at,
      source_hash,
      ...(postgres ? { terms: document ? sql<string>`${document.tsvector}::tsvector` : null } : {}),
    };
  });
  const written = await tx
    .insertInto('post_search')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['community_id', 'post_id']).doUpdateSet((eb) => ({
        feed_id: eb.ref('excluded.feed_id'),
        author_profile_id: eb.ref('excluded.author_profile_id'),
        author_name: eb.ref('excluded.author_name'),
        in_home: eb.ref('excluded.in_home'),
        latest_activity_at: eb.ref('excluded.latest_activity_at'),
        source_hash: eb.ref('excluded.source_hash'),
        ...(postgres ? { terms: eb.fn.coalesce('excluded.terms', 'post_search.terms') } : {}),
      })),
    )
    .$if(!postgres, (q) => q.returning(['post_id', 'doc_id']))
    .execute();
  if (postgres || changed.size === 0) return;
  // A post indexed before is replaced; a new one is inserted. FTS5 cannot tell whether a rowid of a
  // contentless table holds a row, so a replace records a deletion (a tombstone) whatever it holds:
  // done for every new post, that made the import of 100k posts ~1.5x the import without the index.
  const fresh: RawBuilder<unknown>[] = [];
  const replaced: RawBuilder<unknown>[] = [];
  for (const row of written as { post_id: string; doc_id: number }[]) {
    const document = changed.get(row.post_id);
    if (!document) continue;
    (row.doc_id > lastDocId ? fresh : replaced).push(sql`(${row.doc_id}, ${document.title}, ${document.author}, ${document.body})`);
  }
  for (const part of batchesOf(fresh, 200)) {
    await sql`insert into post_search_fts (rowid, title, author, body) values ${sql.join(part)}`.execute(tx);
  }
  for (const part of batchesOf(replaced, 200)) {
    await sql`insert or replace into post_search_fts (rowid, title, author, body) values ${sql.join(part)}`.execute(tx);
  }
}

/** SQLite: the largest doc_id, 0 when there is none (the end of the INTEGER PRIMARY KEY's b-tree). */
async function lastDocIdOf(tx: Tx): Promise<number> {
  const row = await tx
    .selectFrom('post_search')
    .select((eb) => eb.fn.max('doc_id').as('last'))
    .executeTakeFirst();
  return Number(row?.last ?? 0);
}

/** Removes posts from the index (a post deleted). */
export async function unindexPosts(tx: Tx, communityId: string, postIds: readonly string[]): Promise<void> {
  for (const batch of batchesOf(postIds)) {
    if (!isPostgres(tx)) {
      await sql`delete from post_search_fts where rowid in (
        select doc_id from post_search where community_id = ${communityId} and post_id in (${sql.join(batch)}))`.execute(tx);
    }
    await tx.deleteFrom('post_search').where('community_id', '=', communityId).where('post_id', 'in', batch).execute();
  }
}

/** Moves the index entries of these feeds' posts into (1) or out of (0) the Home feed, as updatePostsInHome does the posts. */
export async function setIndexedInHome(tx: Tx, communityId: string, feedIds: readonly string[], inHome: Flag): Promise<void> {
  await tx
    .updateTable('post_search')
    .set({ in_home: inHome })
    .where('community_id', '=', communityId)
    .where('feed_id', 'in', feedIds)
    .where('in_home', '<>', inHome)
    .execute();
}

/** A renamed author: the profile, its new name, and the name its posts' entries carry (its previous one). */
export interface AuthorRename {
  id: string;
  name: string;
  indexedName: string;
}

/**
 * The posts of renamed authors whose entries do not carry the new name yet: their ids. No index of
 * entries by author is kept (migration 017): the candidates are the posts whose author field holds
 * the previous name's words, found by the text index, then kept if their author is the profile.
 */
export async function selectPostsWithStaleAuthorName(tx: Tx, communityId: string, renames: readonly AuthorRename[]): Promise<string[]> {
  const postgres = isPostgres(tx);
  const tag = communityTag(communityId);
  const ids: string[] = [];
  for (const rename of renames) {
    const tokens = tokensOf(rename.indexedName, fieldTokenLimits.author).map((token) => tag + token);
    const author = sql`s.author_profile_id = ${rename.id} and s.author_name <> ${rename.name}`;
    // Tokens are letters and digits only: nothing to escape inside the quotes.
    const rows =
      tokens.length === 0
        ? // A name without a word (none, or emoji only) is in no index: the community's entries are read.
          await sql<{ post_id: string }>`select s.post_id from post_search s where s.community_id = ${communityId} and ${author}`.execute(
            tx,
          )
        : postgres
          ? await sql<{ post_id: string }>`select s.post_id from post_search s
              where s.terms @@ ${tokens.map((token) => `'${token}':C`).join(' & ')}::tsquery
              and (s.community_id || '') = ${communityId} and ${author}`.execute(tx)
          : await sql<{ post_id: string }>`select s.post_id from post_search_fts join post_search s on s.doc_id = post_search_fts.rowid
              where post_search_fts match ${`{author} : "${tokens.join(' ')}"`} and s.community_id = ${communityId} and ${author}`.execute(
              tx,
            );
    ids.push(...rows.rows.map((row) => row.post_id));
  }
  return ids;
}

/** Drops the community's whole index (its entries and, on SQLite, their FTS5 rows). */
export async function dropCommunityIndex(tx: Tx, communityId: string): Promise<void> {
  if (!isPostgres(tx)) {
    await sql`delete from post_search_fts where rowid in (select doc_id from post_search where community_id = ${communityId})`.execute(tx);
  }
  await tx.deleteFrom('post_search').where('community_id', '=', communityId).execute();
}

/** Records that the community's whole index has word pairs (after a rebuild): its searches use them. */
export async function markCommunityPaired(tx: Tx, communityId: string): Promise<void> {
  await tx.deleteFrom('post_search_unpaired').where('community_id', '=', communityId).execute();
}

/** The communities whose index predates word pairs (at most `limit`): the start-up names them to the operator. */
export async function selectUnpairedCommunities(db: Db, limit: number): Promise<string[]> {
  const rows = await db.selectFrom('post_search_unpaired').select('community_id').orderBy('community_id').limit(limit).execute();
  return rows.map((row) => row.community_id);
}
