import { resolveStamps } from '../../import/import-fields.js';
import { duplicateIdFailure } from '../../import/import-section.js';
import { Refused } from '../../shared/failures.js';
import type { TxContext } from '../../write-path/command-context.js';
import type { CommunityWrite } from '../../write-path/write-community-data.js';
import { updatePostsInHome } from '../posts/posts.queries.js';
import { type FeedRow, homeFlag, lockFeedRow, selectFeedRows, upsertFeedRows } from './feeds.queries.js';
import { type ParsedFeed, parseFeedRecord } from './feeds.rules.js';
import type { FeedDoc } from './feeds.schemas.js';

/*
 * Every change of feeds: the import's upsert (upsertFeeds), `feed add` (writeFeedRecord) and chat
 * sync's channel changes (writeFeedChannel). All of them are written by upsertFeeds, so a feed made
 * of a channel is checked and stored exactly as an imported one.
 */

/**
 * Upserts checked feed records by id, and keeps `posts.in_home` in step: every post of a feed whose
 * archived/unlisted flags move it in or out of the Home feed is updated here. Refused when an id
 * appears twice (the failure's path starts with the record's index).
 */
export async function upsertFeeds(w: TxContext, records: readonly ParsedFeed[]): Promise<void> {
  const duplicate = duplicateIdFailure(records, (record) => record.row.id);
  if (duplicate) throw new Refused([duplicate]);
  const ids = records.map((record) => record.row.id);
  const stored = await selectFeedRows(w.tx, w.communityId, ids);
  const joining: string[] = [];
  const leaving: string[] = [];
  const rows = records.map(({ row, given }): FeedRow => {
    const before = stored.get(row.id);
    if (before && homeFlag(before) !== homeFlag(row)) (homeFlag(row) === 1 ? joining : leaving).push(row.id);
    const unchanged =
      before !== undefined && before.doc === row.doc && before.is_archived === row.is_archived && before.is_unlisted === row.is_unlisted;
    return { ...row, ...resolveStamps(given, before && { ...before, unchanged }, w.now) };
  });
  await upsertFeedRows(w.tx, w.communityId, rows);
  await updatePostsInHome(w.tx, w.communityId, joining, 1);
  await updatePostsInHome(w.tx, w.communityId, leaving, 0);
}

/** Creates (or replaces) a feed from a checked record. */
export async function writeFeedRecord(w: CommunityWrite, record: ParsedFeed): Promise<void> {
  await upsertFeeds(w, [record]);
  // Feed summaries and Home membership are part of post answers.
  w.touch('posts');
}

/** Applies channel fields to a bound feed; false when nothing changed. */
export async function writeFeedChannel(
  w: CommunityWrite,
  { feed, fields }: { feed: FeedRow; fields: Partial<FeedDoc> & { is_archived?: boolean } },
): Promise<boolean> {
  const { is_archived, ...docFields } = fields;
  const doc = { ...(JSON.parse(feed.doc) as FeedDoc), ...docFields };
  const archived = is_archived ?? feed.is_archived === 1;
  if (JSON.stringify(doc) === feed.doc && archived === (feed.is_archived === 1)) return false;
  const record = { ...doc, id: feed.id, is_archived: archived, is_unlisted: feed.is_unlisted === 1 };
  await writeFeedRecord(w, parseFeedRecord(record));
  return true;
}

/** Takes a feed's row lock (member counts, renames) and reads the feed under it. */
export async function lockFeed(w: CommunityWrite, feedId: string): Promise<FeedRow | undefined> {
  await lockFeedRow(w.tx, w.communityId, feedId);
  return (await selectFeedRows(w.tx, w.communityId, [feedId])).get(feedId);
}
