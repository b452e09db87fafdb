import { selectInBatches } from '../db/batches.js';
import type { Db, Tx } from '../db/database.js';
import { preparedQuery } from '../db/prepared-query.js';
import { selectProfilesByChatUserIds } from '../modules/profiles/profiles.queries.js';
import { buildReferences } from '../rich-text/build-references.js';
import type { Mentions } from '../rich-text/extract-mentions.js';
import type { References } from '../rich-text/rich-text.schemas.js';

interface FeedSummary {
  id: string;
  label: string;
  slug: string;
  public_id: string;
  chat_channel_name: string;
}

const feedsByChannelIds = preparedQuery((db, p: { communityId: string; channelIds: readonly string[] }) =>
  db
    .selectFrom('feeds')
    .select(['id', 'chat_channel_id', 'doc'])
    .where('community_id', '=', p.communityId)
    .where('chat_channel_id', 'in', p.channelIds)
    .orderBy('created_at'),
);

async function selectFeedsByChannelIds(db: Db | Tx, communityId: string, channelIds: string[]): Promise<Map<string, FeedSummary>> {
  const feeds = new Map<string, FeedSummary>();
  const rows = await selectInBatches(channelIds, (batch) => feedsByChannelIds.all(db, { communityId, channelIds: batch }));
  for (const row of rows) {
    if (!row.chat_channel_id || feeds.has(row.chat_channel_id)) continue;
    const doc = JSON.parse(row.doc) as Partial<FeedSummary>;
    feeds.set(row.chat_channel_id, {
      id: row.id,
      label: doc.label ?? '',
      slug: doc.slug ?? '',
      public_id: doc.public_id ?? '',
      chat_channel_name: doc.chat_channel_name ?? '',
    });
  }
  return feeds;
}

/**
 * Resolves the stored mentions of several records (one page) to References with two batched
 * reads: users to the community's profiles, channels to the community's feeds. Returns one
 * References per input, in order.
 */
export async function resolveReferences(db: Db | Tx, communityId: string, mentionsList: readonly Mentions[]): Promise<References[]> {
  const userIds = [...new Set(mentionsList.flatMap((m) => m.userIds))];
  const channelIds = [...new Set(mentionsList.flatMap((m) => m.channelIds))];
  const [profiles, feeds] = await Promise.all([
    userIds.length ? selectProfilesByChatUserIds(db, communityId, userIds) : Promise.resolve(new Map()),
    channelIds.length ? selectFeedsByChannelIds(db, communityId, channelIds) : Promise.resolve(new Map<string, FeedSummary>()),
  ]);
  const profilesByChatUserId = new Map(
    [...profiles].map(([chatUserId, p]) => [
      chatUserId,
      { profile_id: p.profile_id, preferred_name: p.preferred_name, chat_user_id: chatUserId },
    ]),
  );
  return mentionsList.map((mentions) => buildReferences(mentions, { profilesByChatUserId, feedsByChannelId: feeds }));
}
