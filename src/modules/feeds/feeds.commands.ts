import type { CommunityWrite } from '../../write-path/write-community-data.js';
import { feedsImportSection, type ParsedFeed } from './feeds.import.js';
import { type FeedRow, lockFeedRow, selectFeedRows } from './feeds.queries.js';
import type { FeedDoc } from './feeds.schemas.js';

/* Changes of feeds outside the import file (chat sync, `feed add`), through the feeds section as an import would write them. */

/** Creates (or replaces) a feed from a parsed record. */
export async function writeFeedRecord(w: CommunityWrite, record: ParsedFeed): Promise<void> {
  await feedsImportSection.apply(w.tx, [record], { communityId: w.communityId, now: w.now });
  // Feed summaries and Home membership are part of post answers.
  w.touch('posts');
}

/** Applies channel fields to a bound feed through the feeds section; false when nothing changed. */
export async function writeFeedChannel(
  w: CommunityWrite,
  feed: FeedRow,
  fields: Partial<FeedDoc> & { is_archived?: boolean },
): Promise<boolean> {
  const { is_archived, ...docFields } = fields;
  const doc = { ...(JSON.parse(feed.doc) as FeedDoc), ...docFields };
  const archived = is_archived ?? feed.is_archived === 1;
  if (JSON.stringify(doc) === feed.doc && archived === (feed.is_archived === 1)) return false;
  const record = { ...doc, id: feed.id, is_archived: archived, is_unlisted: feed.is_unlisted === 1 };
  await writeFeedRecord(w, feedsImportSection.parse(record, 0));
  return true;
}

/** Takes a feed's row lock (member counts, renames) and reads the feed under it. */
export async function lockFeed(w: CommunityWrite, feedId: string): Promise<FeedRow | undefined> {
  await lockFeedRow(w.tx, w.communityId, feedId);
  return (await selectFeedRows(w.tx, w.communityId, [feedId])).get(feedId);
}
