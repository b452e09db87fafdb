import type { Selectable } from 'kysely';
import { batchesOf, selectInBatches } from '../../db/batches.js';
import type { Db, Engine, Tx } from '../../db/database.js';
import { lockRow } from '../../db/lock-row.js';
import { orderedRows } from '../../db/ordered-rows.js';
import { isDeepPage, preparedQuery } from '../../db/prepared-query.js';
import type { Flag, PostsTable } from '../../db/schema.js';
import { type IndexHints, indexPosts, setIndexedInHome, unindexPosts } from '../search/queries/entries.js';
import type { PostSort } from './posts.schemas.js';

/** A post row as stored (community_id aside). */
export type PostRow = Omit<Selectable<PostsTable>, 'community_id'>;

/** Which posts a list shows: one feed's, or the Home feed's. */
export type FeedScope = { kind: 'feed'; feedId: string } | { kind: 'home' };

/** The columns of a post row, as every read of posts selects them. */
export const postColumns = [
  'id',
  'feed_id',
  'author_profile_id',
  'in_home',
  'content_created_at',
  'latest_activity_at',
  'doc',
  'mentions',
  'created_at',
  'updated_at',
] as const;

// Both directions of each sort match an index (community_id, feed_id|in_home, column, id), so a
// page is a range scan of that index; the id tie-break runs in the same direction for that reason.
const sortOrder: Record<PostSort, { column: 'content_created_at' | 'latest_activity_at'; direction: 'asc' | 'desc' }> = {
  newest: { column: 'content_created_at', direction: 'desc' },
  oldest: { column: 'content_created_at', direction: 'asc' },
  'most-recent-activity': { column: 'latest_activity_at', direction: 'desc' },
};

function scoped(db: Db | Tx, communityId: string, scope: FeedScope) {
  const base = db.selectFrom('posts').where('community_id', '=', communityId);
  return scope.kind === 'home' ? base.where('in_home', '=', 1) : base.where('feed_id', '=', scope.feedId);
}

/** Number of posts in the scope: its own query so that a cache (keyed by posts_version) can wrap it. */
export async function countPosts(db: Db | Tx, communityId: string, scope: FeedScope): Promise<number> {
  const row = await scoped(db, communityId, scope)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A row of a page: the post, with its author's stored profile and its feed's stored doc (null when absent). */
export type PostPageRow = PostRow & { author_doc: string | null; feed_doc: string | null };

/** The page query of one scope kind, sort and depth: twelve SQL texts in all, each compiled once. */
const pageQueries = new Map<string, ReturnType<typeof pageQueryOf>>();

/**
 * `deep`: the page's ids by an index-only scan of the scope's index first, then only its rows
 * (isDeepPage). The author's profile and the feed come in the same statement, joined to the page's
 * rows only (a primary-key lookup each): on PostgreSQL every statement is a round trip and costs
 * 100-200 µs of the server's CPU, and a page used to need one each for them.
 */
function pageQueryOf(kind: FeedScope['kind'], sort: PostSort, deep: boolean) {
  const { column, direction } = sortOrder[sort];
  return preparedQuery((db, p: { communityId: string; feedId: string; limit: number; offset: number }) => {
    const scope: FeedScope = kind === 'home' ? { kind } : { kind, feedId: p.feedId };
    const ids = () =>
      scoped(db, p.communityId, scope).select('id').orderBy(column, direction).orderBy('id', direction).limit(p.limit).offset(p.offset);
    const page = deep
      ? db.selectFrom('posts').select(postColumns).where('community_id', '=', p.communityId).where('id', 'in', ids())
      : scoped(db, p.communityId, scope)
          .select(postColumns)
          .orderBy(column, direction)
          .orderBy('id', direction)
          .limit(p.limit)
          .offset(p.offset);
    return db
      .selectFrom(page.as('page'))
      .leftJoin('profiles as author', (join) =>
        join.on('author.community_id', '=', p.communityId).onRef('author.id', '=', 'page.author_profile_id'),
      )
      .leftJoin('feeds as feed', (join) => join.on('feed.community_id', '=', p.communityId).onRef('feed.id', '=', 'page.feed_id'))
      .selectAll('page')
      .select(['author.doc as author_doc', 'feed.doc as feed_doc'])
      .orderBy(`page.${column}`, direction)
      .orderBy('page.id', direction);
  });
}

/** One page of posts in the scope, sorted, ties broken by id, with each post's author and feed. */
export async function selectPostsPage(
  db: Db | Tx,
  communityId: string,
  scope: FeedScope,
  sort: PostSort,
  limit: number,
  offset: number,
): Promise<PostPageRow[]> {
  const deep = isDeepPage(db, limit, offset);
  const shape = `${scope.kind} ${sort}${deep ? ' deep' : ''}`;
  let query = pageQueries.get(shape);
  if (!query) {
    query = pageQueryOf(scope.kind, sort, deep);
    pageQueries.set(shape, query);
  }
  return query.all(db, { communityId, feedId: scope.kind === 'feed' ? scope.feedId : '', limit, offset });
}

/** The page rows of posts by id (a page of a ranked list), with author and feed, compiled once per page length. */
const pageRowsByIdsQuery = preparedQuery((db, p: { communityId: string; ids: readonly string[] }) =>
  db
    .selectFrom('posts as post')
    .leftJoin('profiles as author', (join) =>
      join.on('author.community_id', '=', p.communityId).onRef('author.id', '=', 'post.author_profile_id'),
    )
    .leftJoin('feeds as feed', (join) => join.on('feed.community_id', '=', p.communityId).onRef('feed.id', '=', 'post.feed_id'))
    .select(postColumns.map((column) => `post.${column}` as const))
    .select(['author.doc as author_doc', 'feed.doc as feed_doc'])
    .where('post.community_id', '=', p.communityId)
    .where('post.id', 'in', p.ids),
);

/** Page rows of posts in the order of `ids` (at most a page: one statement); an unknown id is left out. */
export async function selectPageRowsByIds(db: Db | Tx, communityId: string, ids: readonly string[]): Promise<PostPageRow[]> {
  if (ids.length === 0) return [];
  const rows = await pageRowsByIdsQuery.all(db, { communityId, ids });
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** Stored posts by id (unknown ids are absent), in batches. */
export async function selectPostRows(db: Db | Tx, communityId: string, ids: readonly string[]): Promise<Map<string, PostRow>> {
  const rows = await selectInBatches(ids, (batch) =>
    db.selectFrom('posts').select(postColumns).where('community_id', '=', communityId).where('id', 'in', batch).execute(),
  );
  return new Map(rows.map((row) => [row.id, row]));
}

/**
 * Inserts or replaces posts by id, and their search entries (callers batch: every row is one
 * statement's parameters); `hints`, what the caller knows of them (their parsed texts, which are new).
 */
export async function upsertPostRows(tx: Tx, communityId: string, rows: readonly PostRow[], hints?: IndexHints): Promise<void> {
  if (rows.length === 0) return;
  await tx
    .insertInto('posts')
    .values(rows.map((row) => ({ community_id: communityId, ...row })))
    .onConflict((oc) =>
      oc.columns(['community_id', 'id']).doUpdateSet((eb) => ({
        feed_id: eb.ref('excluded.feed_id'),
        author_profile_id: eb.ref('excluded.author_profile_id'),
        in_home: eb.ref('excluded.in_home'),
        content_created_at: eb.ref('excluded.content_created_at'),
        latest_activity_at: eb.ref('excluded.latest_activity_at'),
        doc: eb.ref('excluded.doc'),
        mentions: eb.ref('excluded.mentions'),
        created_at: eb.ref('excluded.created_at'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .execute();
  await indexPosts(tx, communityId, rows, hints);
}

/** Deletes a post and its search entry; false when there was none. */
export async function deletePostRow(tx: Tx, communityId: string, id: string): Promise<boolean> {
  const result = await tx.deleteFrom('posts').where('community_id', '=', communityId).where('id', '=', id).executeTakeFirst();
  await unindexPosts(tx, communityId, [id]);
  return Number(result.numDeletedRows) > 0;
}

/** Takes a post's row lock before a read-modify-write (a count step). */
export const lockPostRow = (tx: Tx, communityId: string, id: string): Promise<void> => lockRow(tx, 'posts', communityId, id);

/** A post's stored doc and latest activity, or undefined (chat sync keeps the counts an edit does not carry). */
export async function selectPostDocAndActivity(
  db: Db | Tx,
  communityId: string,
  id: string,
): Promise<Pick<PostRow, 'doc' | 'latest_activity_at'> | undefined> {
  return db
    .selectFrom('posts')
    .select(['doc', 'latest_activity_at'])
    .where('community_id', '=', communityId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Up to `limit` posts with an id after `after`, in order of id (a rebuild of the search index walks them so). */
export async function selectPostRowsAfter(tx: Db | Tx, communityId: string, after: string, limit: number): Promise<PostRow[]> {
  return tx
    .selectFrom('posts')
    .select(postColumns)
    .where('community_id', '=', communityId)
    .where('id', '>', after)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** The community's posts in byte order of id, a batch at a time (the export). */
export function postRowsInIdOrder(tx: Db, engine: Engine, communityId: string) {
  return orderedRows(tx, engine, 'posts', communityId, (q) =>
    q.select(['id', 'feed_id', 'author_profile_id', 'content_created_at', 'latest_activity_at', 'doc', 'created_at', 'updated_at']),
  );
}

/** Moves every post of these feeds into (1) or out of (0) the Home feed. */
export async function updatePostsInHome(tx: Tx, communityId: string, feedIds: readonly string[], inHome: Flag): Promise<void> {
  for (const batch of batchesOf(feedIds)) {
    await tx
      .updateTable('posts')
      .set({ in_home: inHome })
      .where('community_id', '=', communityId)
      .where('feed_id', 'in', batch)
      .where('in_home', '<>', inHome)
      .execute();
    await setIndexedInHome(tx, communityId, batch, inHome);
  }
}
