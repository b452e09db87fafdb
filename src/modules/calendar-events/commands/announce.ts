import type { ChatPostResult } from '../../../chat/index.js';
import { ChatUnavailableError } from '../../../chat/index.js';
import { ApiError } from '../../../errors.js';
import type { ServiceDeps } from '../../../shared/service-deps.js';
import { formatJsonTimestamp } from '../../../shared/timestamps.js';
import { chatWorkspaceOf } from '../../chat-connections/chat-connections.reads.js';
import { selectFeedIdsByChannel } from '../../feeds/feeds.queries.js';
import type { ParsedEvent } from '../rules/event-record.js';
import type { PublishedTo } from '../schemas/event.js';

/** What announcing gave: the published_to entries of the channels posted to, and a message about the others. */
export interface Announcement {
  publishedTo: PublishedTo[];
  /** `{ message }` when some channel could not be posted to (spread into the answer), else `{}`. */
  message: { message?: string };
}

/** Nothing announced (no channel asked, or all of them announced already). */
export const noAnnouncement: Announcement = { publishedTo: [], message: {} };

/** The announcement's text: title, start (and end), location, link. */
function announcementText(event: ParsedEvent): string {
  const when =
    event.end_at === null
      ? formatJsonTimestamp(event.start_at)
      : `${formatJsonTimestamp(event.start_at)} – ${formatJsonTimestamp(event.end_at)}`;
  return [event.doc.title, when, event.doc.location, event.doc.link].filter((line) => line !== '' && line !== null).join('\n');
}

/**
 * Posts the event in each channel not yet in `already` through the community's chat connection,
 * one after the other. A channel that fails is named in the message with the platform's reason;
 * it never undoes the event. Without a chat connection nothing is written (400), like a member
 * invitation.
 */
export async function announceEvent(
  ctx: Pick<ServiceDeps, 'database' | 'chat' | 'secrets'> & { readonly communityId: string },
  { channelIds, already, event }: { channelIds: readonly string[]; already: readonly PublishedTo[]; event: ParsedEvent },
): Promise<Announcement> {
  const { communityId } = ctx;
  const known = new Set(already.map((p) => p.chat_channel_id));
  const channels = [...new Set(channelIds)].filter((id) => !known.has(id));
  if (channels.length === 0) return noAnnouncement;
  const workspace = await chatWorkspaceOf(ctx, communityId);
  if (!workspace) {
    throw new ApiError('chat_admin_not_configured', 'This community has no chat connection to announce the event with.', {
      hint: 'Connect the chat workspace (community-admin chat connect) or omit publish_to_chat_channels.',
    });
  }
  const feeds = await selectFeedIdsByChannel(ctx.database.db, communityId, channels);
  const text = announcementText(event);
  const publishedTo: PublishedTo[] = [];
  const problems: string[] = [];
  for (const channelId of channels) {
    const posted: ChatPostResult = await workspace.postMessage({ channelId, text });
    if (!posted.ok) {
      problems.push(`${channelId} (${posted.code}: ${posted.detail})`);
      continue;
    }
    let permalink = '';
    try {
      permalink = await workspace.getPermalink(posted.channelId, posted.ts);
    } catch (error) {
      const code = error instanceof ChatUnavailableError ? error.code : 'chat_error';
      problems.push(`${channelId} (posted, but its permalink could not be had: ${code})`);
    }
    // feed_id is null for a channel bound to no feed (decisions.md).
    publishedTo.push({
      chat_channel_id: channelId,
      chat_message_permalink: permalink,
      feed_id: feeds.get(channelId) ?? null,
    } as PublishedTo);
  }
  if (problems.length === 0) return { publishedTo, message: {} };
  return { publishedTo, message: { message: `The event was saved, but could not be announced in ${problems.join('; ')}.` } };
}
