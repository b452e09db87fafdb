import type { Database } from '../../db/database.js';
import type { PageMeta } from '../../http/json-text.js';
import { emptyReferences, type Mentions } from '../../rich-text/index.js';
import type { CountCache } from '../counts/count-cache.js';
import { feedSummaryOf, selectFeedSummaries } from '../feeds/feeds.queries.js';
import type { FeedSummary } from '../feeds/feeds.schemas.js';
import { feedIdFromPath, requireFeedRow } from '../feeds/feeds.service.js';
import { selectProfileJsonByIds } from '../profiles/profiles.queries.js';
import { resolveReferences } from '../references/resolve-references.js';
import { countPosts, type FeedScope, type PostRow, selectPostsPage } from './posts.queries.js';
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
export async function listPosts(
  database: Database,
  communityId: string,
  feedIdOrHome: string,
  query: ListPostsQuery,
  counts?: CountCache,
  now = Date.now(),
): Promise<PostsPage> {
  const { db } = database;
  let scope: FeedScope = { kind: 'home' };
  let knownFeeds = new Map<string, FeedSummary>();
  if (feedIdOrHome !== 'home') {
    const feed = await requireFeedRow(database, communityId, feedIdFromPath(feedIdOrHome, 'must be a UUID or "home"'));
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
  const totalPages = Math.ceil(total / query.per_page);
  return {
    page: query.page,
    per_page: query.per_page,
    count: rows.length,
    total_records: total,
    total_pages: totalPages,
    has_next: query.page + 1 < totalPages,
    records: await renderPosts(database, communityId, rows, knownFeeds),
  };
}

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
