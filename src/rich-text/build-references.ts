import type { Mentions } from './extract-mentions.js';
import type { RenderOptions } from './inline-runs.js';
import type { References } from './rich-text.schemas.js';

/** The community's profiles and feeds that mentions are resolved against. */
export interface ReferenceLookup {
  readonly profilesByChatUserId: ReadonlyMap<string, { profile_id: string; preferred_name: string; chat_user_id: string }>;
  readonly feedsByChannelId: ReadonlyMap<string, { id: string; label: string; slug: string; public_id: string; chat_channel_name: string }>;
}

/** References with every list empty. */
export function emptyReferences(): References {
  return { mentioned_chat_users: [], mentioned_chat_channels: [], custom_emojis: [], urls: [] };
}

/**
 * Resolves mentions into the spec's References. Users without a profile and channels
 * without a feed are left out: the References shape has no place for them.
 */
export function buildReferences(mentions: Mentions, lookup: ReferenceLookup): References {
  const references = emptyReferences();
  for (const userId of mentions.userIds) {
    const profile = lookup.profilesByChatUserId.get(userId);
    if (profile === undefined) continue;
    references.mentioned_chat_users.push({
      profile_id: profile.profile_id,
      preferred_name: profile.preferred_name,
      chat_user_id: profile.chat_user_id,
    });
  }
  for (const channelId of mentions.channelIds) {
    const feed = lookup.feedsByChannelId.get(channelId);
    if (feed === undefined) continue;
    references.mentioned_chat_channels.push({
      chat_channel: { id: channelId, name: feed.chat_channel_name },
      feed: {
        id: feed.id,
        label: feed.label,
        slug: feed.slug,
        public_id: feed.public_id,
        chat_channel: { name: feed.chat_channel_name },
      },
    });
  }
  // Copies, so that callers changing one result cannot change the other.
  references.custom_emojis = mentions.customEmojis.map(({ alias, name, url }) => ({ alias, name, url }));
  references.urls = mentions.urls.map((entry) => ({
    order_seen: entry.order_seen,
    is_embedded_media: entry.is_embedded_media,
    is_image: entry.is_image,
    is_video: entry.is_video,
    url: entry.url,
  }));
  return references;
}

/** Render options that show resolved mentions by name (`@Preferred Name`, `#channel-name`). */
export function renderOptionsFromReferences(references: References): RenderOptions {
  return {
    userNames: new Map(references.mentioned_chat_users.map((user) => [user.chat_user_id, user.preferred_name])),
    channelNames: new Map(references.mentioned_chat_channels.map((channel) => [channel.chat_channel.id, channel.chat_channel.name])),
  };
}
