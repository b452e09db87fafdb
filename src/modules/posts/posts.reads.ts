import { cachedRead } from '../../caching/cached-read.js';
import type { CountCache } from '../../caching/count-cache.js';
import type { Database, Tx } from '../../db/database.js';
import { notFound } from '../../errors.js';
import { resolveReferences } from '../../references/resolve-references.js';
import { emptyReferences, type Mentions } from '../../rich-text/index.js';
import { dataEnvelope, type PageMeta, pagedListEnvelope, pageOf } from '../../schemas/json-text.js';
import { type EpochMicros, endOfTime } from '../../shared/time.js';
import { selectFeedRows } from '../feeds/feeds.queries.js';
import { feedIdFromPath, requireFeedRow, selectFeedSummaries } from '../feeds/feeds.reads.js';
import { feedSummaryOf } from '../feeds/feeds.records.js';
import type { FeedSummary } from '../feeds/feeds.schemas.js';
import { selectProfileJsonByIds } from '../profiles/profiles.queries.js';
import { countPosts, type FeedScope, type PostPageRow, type PostRow, selectPostRows, selectPostsPage } from './posts.queries.js';
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
  now: EpochMicros,
): Promise<PostsPage> {
  const { db } = database;
  let scope: FeedScope = { kind: 'home' };
  if (feedIdOrHome !== 'home') {
    const feed = await requireFeedRow({ database }, communityId, feedIdFromPath(feedIdOrHome, 'must be a UUID or "home"'));
    scope = { kind: 'feed', feedId: feed.id };
  }
  // Post totals do not depend on time: they hold until the community's posts change (posts_version).
  const total = counts
    ? await counts.total(database, communityId, 'posts_version', JSON.stringify(scope), now, async () => ({
        count: await countPosts(db, communityId, scope),
        validUntil: endOfTime,
      }))
    : await countPosts(db, communityId, scope);
  const offset = query.page * query.per_page;
  // Past the end there is nothing to read: skip the page query (and any huge OFFSET).
  const rows = offset < total ? await selectPostsPage(db, communityId, scope, query.sort, query.per_page, offset) : [];
  return pageOf(query.page, query.per_page, total, await renderPosts(database, communityId, rows, partsOfPage(rows)));
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

/** What a post record shows besides its row: authors' stored profiles by id, feed summaries by id. */
interface PostParts {
  authors: Map<string, string>;
  feeds: Map<string, FeedSummary>;
}

/** The parts of a page's rows, which its query joined (selectPostsPage). */
function partsOfPage(rows: readonly PostPageRow[]): PostParts {
  const parts: PostParts = { authors: new Map(), feeds: new Map() };
  for (const row of rows) {
    if (row.author_profile_id && row.author_doc !== null) parts.authors.set(row.author_profile_id, row.author_doc);
    if (row.feed_doc !== null && !parts.feeds.has(row.feed_id))
      parts.feeds.set(row.feed_id, feedSummaryOf({ id: row.feed_id, doc: row.feed_doc }));
  }
  return parts;
}

/** The parts of rows read on their own (a single post), with one batched read per kind. */
async function loadParts(database: Database, communityId: string, rows: readonly PostRow[]): Promise<PostParts> {
  const { db } = database;
  const [authors, feeds] = await Promise.all([
    selectProfileJsonByIds(
      db,
      communityId,
      rows.flatMap((row) => (row.author_profile_id ? [row.author_profile_id] : [])),
    ),
    selectFeedSummaries(
      db,
      communityId,
      rows.map((row) => row.feed_id),
    ),
  ]);
  return { authors, feeds };
}

/** API records (JSON text) of rows, with their references resolved for all of them at once. */
async function renderPosts(database: Database, communityId: string, rows: readonly PostRow[], parts: PostParts): Promise<string[]> {
  if (rows.length === 0) return [];
  const references = await resolveReferences(
    database.db,
    communityId,
    rows.map((row) => JSON.parse(row.mentions) as Mentions),
  );
  return rows.map((row, i) =>
    renderPost(
      row,
      parts.authors.get(row.author_profile_id ?? ''),
      parts.feeds.get(row.feed_id) ?? { id: row.feed_id, label: '', slug: '' },
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
    const [record] = await renderPosts(deps.database, communityId, [row], await loadParts(deps.database, communityId, [row]));
    if (record === undefined) throw notFound('Post');
    return { body: dataEnvelope(record) };
  },
});

/** API records (JSON text) of page rows read with their author and feed (a search's page), in their order. */
export function renderPageRows(database: Database, communityId: string, rows: readonly PostPageRow[]): Promise<string[]> {
  return renderPosts(database, communityId, rows, partsOfPage(rows));
}

/** A post as the API answers it (a plain object), or null when there is no such post. */
export async function renderPostObject(tx: Tx, communityId: string, postId: string): Promise<unknown> {
  const row = (await selectPostRows(tx, communityId, [postId])).get(postId);
  if (!row) return null;
  const authors = await selectProfileJsonByIds(tx, communityId, row.author_profile_id ? [row.author_profile_id] : []);
  const feed = (await selectFeedRows(tx, communityId, [row.feed_id])).get(row.feed_id);
  const [references] = await resolveReferences(tx, communityId, [JSON.parse(row.mentions) as Mentions]);
  const summary = feed ? feedSummaryOf(feed) : { id: row.feed_id, label: '', slug: '' };
  return JSON.parse(renderPost(row, authors.get(row.author_profile_id ?? ''), summary, references as NonNullable<typeof references>));
}
