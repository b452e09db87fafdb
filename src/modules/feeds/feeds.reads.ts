import type { Db, Tx } from '../../db/database.js';
import { notFound } from '../../errors.js';
import { resolveReferences } from '../../references/resolve-references.js';
import { emptyReferences, extractMentions } from '../../rich-text/index.js';
import type { References } from '../../rich-text/rich-text.schemas.js';
import { type PageMeta, pageOf } from '../../schemas/json-text.js';
import { refuse } from '../../shared/failures.js';
import { isUuid } from '../../shared/ids.js';
import type { DatabaseDeps } from '../../shared/service-deps.js';
import { type FeedRow, selectFeedRow, selectFeedRows, selectFeedsPage } from './feeds.queries.js';
import { feedSummaryOf } from './feeds.records.js';
import type { Feed, FeedDoc, FeedSummary, ListFeedsQuery } from './feeds.schemas.js';

/**
 * A feed id from a path, lower-cased; refused at `feed_id` when it is none. The schema's `uuid`
 * format also admits a `urn:uuid:` prefix, which no stored id has.
 */
export function feedIdFromPath(value: string, rule = 'must be a UUID'): string {
  if (!isUuid(value)) throw refuse(['feed_id'], 'format', rule);
  return value.toLowerCase();
}

/** The stored feed of the community, or a 404 (also for another community's feed). */
export async function requireFeedRow({ database }: DatabaseDeps, communityId: string, feedId: string): Promise<FeedRow> {
  const row = await selectFeedRow(database.db, communityId, feedId);
  if (!row) throw notFound('Feed');
  return row;
}

/** `GET /feeds/{feed_id}`: the feed record (the hosted product's fields). */
export async function getFeed({ database }: DatabaseDeps, communityId: string, rawFeedId: string): Promise<Feed> {
  const row = await requireFeedRow({ database }, communityId, feedIdFromPath(rawFeedId));
  const [feed] = await feedsFromRows(database.db, communityId, [row]);
  if (!feed) throw notFound('Feed');
  return feed;
}

/** One page of the community's feeds (`GET /feeds`), in the order of `selectFeedsPage`. */
export async function listFeeds(
  { database }: DatabaseDeps,
  communityId: string,
  query: ListFeedsQuery,
): Promise<PageMeta & { records: Feed[] }> {
  const { rows, total } = await selectFeedsPage(database.db, communityId, query.per_page, query.page * query.per_page);
  return pageOf(query.page, query.per_page, total, await feedsFromRows(database.db, communityId, rows));
}

/**
 * The API records of stored feeds, with the references of their purpose and topic blocks resolved
 * for all of them at once. Feeds keep no stored mentions: a community has tens of feeds and a
 * purpose is a line or two, so reading the blocks again costs less than a column kept in step.
 */
async function feedsFromRows(db: Db, communityId: string, rows: readonly FeedRow[]): Promise<Feed[]> {
  const docs = rows.map((row) => JSON.parse(row.doc) as Partial<FeedDoc>);
  const mentions = docs.flatMap((doc) => [
    extractMentions(doc.chat_channel_purpose_chat_blocks ?? []),
    extractMentions(doc.chat_channel_topic_chat_blocks ?? []),
  ]);
  const references = await resolveReferences(db, communityId, mentions);
  return rows.map((row, i) => feedFromRow(row, docs[i] ?? {}, references.slice(2 * i, 2 * i + 2)));
}

// Stored docs written before emoji_icon and the banner became nullable hold "" for "none".
const nullIfEmpty = (value: string | null | undefined): string | null => (value === undefined || value === '' ? null : value);

/** The API record of a stored feed (its doc parsed, its two References given), in the spec's order. */
function feedFromRow(row: FeedRow, doc: Partial<FeedDoc>, [purpose, topic]: References[]): Feed {
  return {
    id: row.id,
    label: doc.label ?? '',
    slug: doc.slug ?? '',
    emoji_icon: nullIfEmpty(doc.emoji_icon),
    banner_file_id: nullIfEmpty(doc.banner_file_id),
    banner_file_url: nullIfEmpty(doc.banner_file_url),
    is_archived: row.is_archived === 1,
    is_unlisted: row.is_unlisted === 1,
    list_view_display_format: doc.list_view_display_format ?? '',
    post_detail_display_format: doc.post_detail_display_format ?? '',
    chat_channel_id: doc.chat_channel_id ?? '',
    chat_channel_name: doc.chat_channel_name ?? '',
    chat_channel_num_members: doc.chat_channel_num_members ?? 0,
    chat_channel_purpose_chat_blocks: doc.chat_channel_purpose_chat_blocks ?? [],
    chat_channel_topic_chat_blocks: doc.chat_channel_topic_chat_blocks ?? [],
    chat_channel_purpose_chat_blocks_references: purpose ?? emptyReferences(),
    chat_channel_topic_chat_blocks_references: topic ?? emptyReferences(),
    show_in_navigation_menu: doc.show_in_navigation_menu ?? false,
    is_site_posting_enabled: doc.is_site_posting_enabled ?? false,
  };
}

/** `{id, label, slug}` of feeds by id, for the `feed` of each post on a page. */
export async function selectFeedSummaries(db: Db | Tx, communityId: string, ids: readonly string[]): Promise<Map<string, FeedSummary>> {
  const rows = await selectFeedRows(db, communityId, ids);
  return new Map([...rows].map(([id, row]) => [id, feedSummaryOf(row)]));
}
