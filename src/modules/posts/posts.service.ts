import type { Database } from '../../db/database.js';
import { emptyReferences, type Mentions } from '../../rich-text/index.js';
import { toIso } from '../../shared/clock.js';
import type { CountCache } from '../counts/count-cache.js';
import { feedSummaryOf, selectFeedSummaries } from '../feeds/feeds.queries.js';
import type { FeedSummary } from '../feeds/feeds.schemas.js';
import { feedIdFromPath, requireFeedRow } from '../feeds/feeds.service.js';
import { selectProfilesByIds } from '../profiles/profiles.queries.js';
import type { Profile } from '../profiles/profiles.schemas.js';
import { resolveReferences } from '../references/resolve-references.js';
import { countPosts, type FeedScope, type PostRow, selectPostsPage } from './posts.queries.js';
import type { ListPostsQuery, Post, PostDoc } from './posts.schemas.js';

/** The paged list envelope of posts. */
export interface PostsPage {
  page: number;
  per_page: number;
  count: number;
  total_records: number;
  total_pages: number;
  has_next: boolean;
  records: Post[];
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
    records: await hydratePosts(database, communityId, rows, knownFeeds),
  };
}

async function hydratePosts(
  database: Database,
  communityId: string,
  rows: PostRow[],
  knownFeeds: Map<string, FeedSummary>,
): Promise<Post[]> {
  if (rows.length === 0) return [];
  const { db } = database;
  const missingFeeds = rows.map((row) => row.feed_id).filter((id) => !knownFeeds.has(id));
  const [authors, feeds, references] = await Promise.all([
    selectProfilesByIds(
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
  return rows.map((row, i) => {
    const doc = JSON.parse(row.doc) as PostDoc;
    const authorId = row.author_profile_id ?? '';
    return {
      id: row.id,
      created_at: toIso(row.created_at),
      updated_at: toIso(row.updated_at),
      content_created_at: toIso(row.content_created_at),
      latest_activity_at: toIso(row.latest_activity_at),
      feed_id: row.feed_id,
      author_profile_id: authorId,
      ...doc,
      author: authors.get(authorId) ?? placeholderProfile(authorId),
      feed: knownFeeds.get(row.feed_id) ?? feeds.get(row.feed_id) ?? { id: row.feed_id, label: '', slug: '' },
      references: references[i] ?? emptyReferences(),
    };
  });
}

// Import refuses posts without an author profile and nothing deletes profiles, so this only
// shows up if rows were written by other means; a complete record beats a 500 for the page.
function placeholderProfile(profileId: string): Profile {
  const blank = '';
  return {
    profile_id: profileId,
    created_at: toIso(0),
    preferred_name: blank,
    preferred_image_original: blank,
    preferred_image_1024: blank,
    preferred_image_512: blank,
    preferred_image_192: blank,
    preferred_image_72: blank,
    preferred_image_48: blank,
    preferred_image_32: blank,
    preferred_image_24: blank,
    first_name: blank,
    last_name: blank,
    email: blank,
    chat_user_id: blank,
    chat_is_admin: false,
    chat_is_bot: false,
    chat_first_name: blank,
    chat_last_name: blank,
    chat_image_72: blank,
    chat_image_original: blank,
  };
}
