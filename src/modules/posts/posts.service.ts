import { cachedRead } from '../../caching/cached-read.js';
import type { CountCache } from '../../caching/count-cache.js';
import type { Database } from '../../db/database.js';
import { notFound } from '../../errors.js';
import { resolveReferences } from '../../references/resolve-references.js';
import { emptyReferences, type Mentions } from '../../rich-text/index.js';
import { dataEnvelope, type PageMeta, pagedListEnvelope, pageOf } from '../../schemas/json-text.js';
import { feedSummaryOf, selectFeedSummaries } from '../feeds/feeds.queries.js';
import type { FeedSummary } from '../feeds/feeds.schemas.js';
import { feedIdFromPath, requireFeedRow } from '../feeds/feeds.service.js';
import { selectProfileJsonByIds } from '../profiles/profiles.queries.js';
import { countPosts, type FeedScope, type PostRow, selectPostRows, selectPostsPage } from './posts.queries.js';
import { renderPost } from './posts.records.js';
import type { ListPostsQuery } from './posts.schemas.js';

/** One page of posts: the paged list envelope, with each record as its JSON text. */
export interface PostsPage extends PageMeta {
  records: string[];
}

/**
 * `GET /feeds/{feed_id}/posts`: one page of a feed's posts (or the Home feed's), each with its
 * author, feed summary and references, read with one batched query per kind for the page.
 */
async function listPosts(
  database: Database,
  communityId: string,
  feedIdOrHome: string,
  query: ListPostsQuery,
  counts: CountCache | undefined,
  now: number,
): Promise<PostsPage> {
  const { db } = database;
  let scope: FeedScope = { kind: 'home' };
  let knownFeeds = new Map<string, FeedSummary>();
  if (feedIdOrHome !== 'home') {
    const feed = await requireFeedRow({ database }, communityId, feedIdFromPath(feedIdOrHome, 'must be a UUID or "home"'));
    scope = { kind: 'feed', feedId: feed.id };
    knownFeeds = new Map([[feed.id, feedSummaryOf(feed)]]);
  }
  // Post totals do not depend on time: they hold until the community's posts change (posts_version).
  const total = counts
    ? await counts.total(database, communityId, 'posts_version', JSON.stringify(scope), now, async () => ({
        count: await countPosts(db, communityId, scope),
        validUntil: Number.POSITIVE_INFINITY,
      }))
    : await countPosts(db, communityId, scope);
  const offset = query.page * query.per_page;
  // Past the end there is nothing to read: skip the page query (and any huge OFFSET).
  const rows = offset < total ? await selectPostsPage(db, communityId, scope, query.sort, query.per_page, offset) : [];
  return pageOf(query.page, query.per_page, total, await renderPosts(database, communityId, rows, knownFeeds));
}

/** `GET /feeds/{feed_id}/posts`, cached. Posts do not depend on time: an answer holds until the community's posts change. */
export const readPostsList = cachedRead({
  name: 'posts.list',
  view: 'posts',
  key: (_now, feedIdOrHome: string, query: ListPostsQuery) => `${feedIdOrHome.toLowerCase()} ${query.sort} ${query.page} ${query.per_page}`,
  render: async (deps, communityId, now, feedIdOrHome: string, query: ListPostsQuery) => {
    const { records, ...meta } = await listPosts(deps.database, communityId, feedIdOrHome, query, deps.counts, now);
    return { body: pagedListEnvelope(meta, records) };
  },
});

/** API records (JSON text) of rows, with authors, feeds and references loaded for all of them at once. */
async function renderPosts(
  database: Database,
  communityId: string,
  rows: PostRow[],
  knownFeeds: Map<string, FeedSummary>,
): Promise<string[]> {
  if (rows.length === 0) return [];
  const { db } = database;
  const missingFeeds = rows.map((row) => row.feed_id).filter((id) => !knownFeeds.has(id));
  const [authors, feeds, references] = await Promise.all([
    selectProfileJsonByIds(
      db,
      communityId,
      rows.flatMap((row) => (row.author_profile_id ? [row.author_profile_id] : [])),
    ),
    missingFeeds.length ? selectFeedSummaries(db, communityId, missingFeeds) : Promise.resolve(new Map<string, FeedSummary>()),
    resolveReferences(
      db,
      communityId,
      rows.map((row) => JSON.parse(row.mentions) as Mentions),
    ),
  ]);
  return rows.map((row, i) =>
    renderPost(
      row,
      authors.get(row.author_profile_id ?? ''),
      knownFeeds.get(row.feed_id) ?? feeds.get(row.feed_id) ?? { id: row.feed_id, label: '', slug: '' },
      references[i] ?? emptyReferences(),
    ),
  );
}

/** `GET /posts/{post_id}`, cached like the lists (until the community's posts change): the post exactly as they show it; 404 otherwise. */
export const readPost = cachedRead({
  name: 'posts.get',
  view: 'posts',
  key: (_now, postId: string) => postId,
  render: async (deps, communityId, _now, postId: string) => {
    const row = (await selectPostRows(deps.database.db, communityId, [postId])).get(postId);
    if (!row) throw notFound('Post');
    const [record] = await renderPosts(deps.database, communityId, [row], new Map());
    if (record === undefined) throw notFound('Post');
    return { body: dataEnvelope(record) };
  },
});
