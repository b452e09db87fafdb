import type { ChatReader } from '../../../chat/slack-reader.js';
import type { Db } from '../../../db/database.js';
import type { CommunityWrite } from '../../../write-path/write-community-data.js';
import { lockFeed, writeFeedChannel } from '../../feeds/feeds.commands.js';
import { selectFeedsOfChannel } from '../../feeds/feeds.queries.js';
import type { FeedDoc } from '../../feeds/feeds.schemas.js';
import { adjustPost } from '../../posts/posts.commands.js';
import { missingAuthors } from '../reads/authors.js';
import type { SyncConnection } from '../reads/connections.js';
import type { ChatEventOutcome } from '../rules/event-outcome.js';
import { channelFields, isPostable, isThreadReply, postIdOf, type SlackObject } from '../rules/slack-records.js';
import { applyChatMessage } from './apply-chat-message.js';
import { writeProfiles } from './slack-users.js';

/*
 * One Events API delivery applied to the community. Applying has two halves: `prepare` asks Slack
 * for what the event does not carry (an unknown author, a permalink, a channel's exact member
 * count), outside any transaction; `apply` writes inside the write path's transaction.
 */

const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const obj = (value: unknown): SlackObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as SlackObject) : {};

export interface Prepared {
  authors: SlackObject[];
  permalink: string | null;
  channel: SlackObject | null;
}

const channelEvents = new Set([
  'member_joined_channel',
  'member_left_channel',
  'channel_rename',
  'channel_archive',
  'channel_unarchive',
  'group_rename',
  'group_archive',
  'group_unarchive',
]);

/** The channel id an event is about (channel_rename carries an object, the others a string). */
const channelOf = (event: SlackObject): string => str(event.channel) || str(obj(event.channel).id) || str(obj(event.item).channel);

/** The message an event brings as a new or changed post, if any. */
function messageOf(event: SlackObject): SlackObject | null {
  if (event.type !== 'message') return null;
  if (event.subtype === 'message_changed') return obj(event.message);
  return isPostable(event) || isThreadReply(event) ? event : null;
}

/** Where an event is prepared: the database its authors are looked up in, and the reader that asks Slack. */
export interface PrepareContext {
  db: Db;
  reader: ChatReader;
}

/** An event of a workspace's delivery, with the connection of the community it is for. */
export interface ChatEventInput {
  connection: SyncConnection;
  event: SlackObject;
}

export async function prepareEvent({ db, reader }: PrepareContext, { connection, event }: ChatEventInput): Promise<Prepared> {
  const prepared: Prepared = { authors: [], permalink: null, channel: null };
  const type = str(event.type);
  const message = messageOf(event);
  if (message && !isThreadReply(message)) {
    prepared.authors = await missingAuthors(db, reader, connection.communityId, [message]);
    // With the workspace's address known (auth.test at connect), the documented form is built, as the
    // backfill does: asking Slack would cost a round trip per message for the same answer.
    if (event.subtype !== 'message_changed' && connection.teamUrl === '') {
      try {
        prepared.permalink =
          str((await reader.call('chat.getPermalink', { channel: channelOf(event), message_ts: str(message.ts) })).permalink) || null;
      } catch {
        // The documented form is built instead (slack-records permalinkOf).
      }
    }
  }
  if (channelEvents.has(type)) {
    try {
      prepared.channel = obj((await reader.call('conversations.info', { channel: channelOf(event), include_num_members: true })).channel);
    } catch {
      // The event's own fields are applied instead (a name, an archive flag, a member count ±1).
    }
  }
  return prepared;
}

/** Applies one event inside the write path; returns what it did (logs and tests). */
export async function applyEvent(
  w: CommunityWrite,
  { connection, event, prepared }: ChatEventInput & { prepared: Prepared },
): Promise<ChatEventOutcome> {
  const type = str(event.type);
  if (prepared.authors.length > 0) await writeProfiles(w, { teamId: connection.teamId, users: prepared.authors });
  if (type === 'user_change' || type === 'team_join') {
    const changed = await writeProfiles(w, { teamId: connection.teamId, users: [obj(event.user)] });
    return { kind: changed > 0 ? 'profile_written' : 'profile_unchanged' };
  }
  const channelId = channelOf(event);
  const feeds = channelId === '' ? [] : await selectFeedsOfChannel(w.tx, w.communityId, channelId);
  if (feeds.length === 0) return { kind: 'ignored', reason: 'unbound_channel' };

  if (channelEvents.has(type)) {
    let changed = 0;
    for (const listed of feeds) {
      const feed = (await lockFeed(w, listed.id)) ?? listed;
      const fields = prepared.channel
        ? channelFields(prepared.channel)
        : fallbackChannelFields(type, event, JSON.parse(feed.doc) as FeedDoc);
      if (await writeFeedChannel(w, { feed, fields })) changed++;
    }
    return { kind: 'feeds_changed', feeds: changed };
  }

  if (type === 'reaction_added' || type === 'reaction_removed') {
    const item = obj(event.item);
    if (item.type !== 'message') return { kind: 'ignored', reason: 'not_a_message_reaction' };
    const step = type === 'reaction_added' ? 1 : -1;
    let changed = 0;
    for (const feed of feeds) {
      const id = postIdOf(connection.teamId, feed.id, str(item.ts));
      if (
        await adjustPost(w, {
          postId: id,
          change: (post) => ({ ...post, reactions_count: Math.max(0, (post.reactions_count ?? 0) + step) }),
        })
      )
        changed++;
    }
    return { kind: 'reactions_counted', posts: changed };
  }

  if (type !== 'message') return { kind: 'ignored', reason: 'event_type', type };

  if (event.subtype === 'message_deleted') {
    const previous = obj(event.previous_message);
    return applyChatMessage(w, {
      connection,
      channelId,
      feeds,
      change: { kind: 'deleted', previous, ts: str(event.deleted_ts) || str(previous.ts) },
    });
  }
  const message = messageOf(event);
  if (!message) return { kind: 'ignored', reason: 'message_subtype', subtype: str(event.subtype) };
  const kind = event.subtype === 'message_changed' ? 'edited' : 'posted';
  return applyChatMessage(w, { connection, channelId, feeds, change: { kind, message, permalink: prepared.permalink } });
}

function fallbackChannelFields(type: string, event: SlackObject, doc: FeedDoc): Partial<FeedDoc> & { is_archived?: boolean } {
  switch (type) {
    case 'channel_rename':
    case 'group_rename':
      return { chat_channel_name: str(obj(event.channel).name) || doc.chat_channel_name };
    case 'channel_archive':
    case 'group_archive':
      return { is_archived: true };
    case 'channel_unarchive':
    case 'group_unarchive':
      return { is_archived: false };
    case 'member_joined_channel':
      return { chat_channel_num_members: doc.chat_channel_num_members + 1 };
    case 'member_left_channel':
      return { chat_channel_num_members: Math.max(0, doc.chat_channel_num_members - 1) };
    default:
      return {};
  }
}
