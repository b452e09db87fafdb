import type { Db, Tx } from '../db/database.js';
import type { MentionedFeed } from '../modules/feeds/feeds.records.js';
import { buildReferences } from '../rich-text/build-references.js';
import type { Mentions } from '../rich-text/extract-mentions.js';
import type { References } from '../rich-text/rich-text.schemas.js';
import { type MentionedProfile, type RelatedKeys, selectRelatedRows } from './related-rows.js';

/** The chat users and channels that a list of stored mentions names, for selectRelatedRows. */
export function mentionKeys(mentionsList: readonly Mentions[]): Pick<RelatedKeys, 'chatUserIds' | 'channelIds'> {
  return {
    chatUserIds: mentionsList.flatMap((m) => m.userIds),
    channelIds: mentionsList.flatMap((m) => m.channelIds),
  };
}

/** One References per stored mentions, in order, from the profiles and feeds read for them. */
export function referencesOf(
  mentionsList: readonly Mentions[],
  found: { profilesByChatUserId: ReadonlyMap<string, MentionedProfile>; feedsByChannelId: ReadonlyMap<string, MentionedFeed> },
): References[] {
  const profilesByChatUserId = new Map(
    [...found.profilesByChatUserId].map(([chatUserId, p]) => [
      chatUserId,
      { profile_id: p.profile_id, preferred_name: p.preferred_name, chat_user_id: chatUserId },
    ]),
  );
  return mentionsList.map((mentions) => buildReferences(mentions, { profilesByChatUserId, feedsByChannelId: found.feedsByChannelId }));
}

/**
 * Resolves the stored mentions of several records (one page) to References, reading all of them
 * at once: users to the community's profiles, channels to the community's feeds. Returns one
 * References per input, in order.
 */
export async function resolveReferences(db: Db | Tx, communityId: string, mentionsList: readonly Mentions[]): Promise<References[]> {
  const found = await selectRelatedRows(db, communityId, { eventIds: [], ...mentionKeys(mentionsList) });
  return referencesOf(mentionsList, found);
}
