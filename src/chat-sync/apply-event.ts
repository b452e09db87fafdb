import type { ChatReader } from '../chat/slack-reader.js';
import type { Db } from '../db/database.js';
import type { FeedDoc } from '../modules/feeds/feeds.schemas.js';
import type { PostImport } from '../modules/posts/posts.schemas.js';
import type { EpochMicros } from '../shared/time.js';
import { formatJsonTimestamp, parseTimestamp } from '../shared/timestamps.js';
import type { CommunityWrite } from '../write-path/write-community-data.js';
import { missingAuthors } from './authors.js';
import { selectFeedsOfChannel } from './bound-feeds.js';
import {
  authorIdOf,
  channelFields,
  isPostable,
  isThreadReply,
  postIdOf,
  postRecordOf,
  type SlackObject,
  tsLater,
  tsToIso,
} from './slack-records.js';
import type { SyncConnection } from './sync-connections.js';
import { adjustPost, deletePost, lockFeed, lockPost, profileIdsFor, writeFeedChannel, writePosts, writeProfiles } from './sync-writer.js';

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

export async function prepareEvent(db: Db, reader: ChatReader, connection: SyncConnection, event: SlackObject): Promise<Prepared> {
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
export async function applyEvent(w: CommunityWrite, connection: SyncConnection, event: SlackObject, prepared: Prepared): Promise<string> {
  const type = str(event.type);
  if (prepared.authors.length > 0) await writeProfiles(w, connection.teamId, prepared.authors);
  if (type === 'user_change' || type === 'team_join') {
    const changed = await writeProfiles(w, connection.teamId, [obj(event.user)]);
    return changed > 0 ? 'profile written' : 'profile unchanged';
  }
  const channelId = channelOf(event);
  const feeds = channelId === '' ? [] : await selectFeedsOfChannel(w.tx, w.communityId, channelId);
  if (feeds.length === 0) return 'no feed bound to the channel';

  if (channelEvents.has(type)) {
    let changed = 0;
    for (const listed of feeds) {
      const feed = (await lockFeed(w, listed.id)) ?? listed;
      const fields = prepared.channel
        ? channelFields(prepared.channel)
        : fallbackChannelFields(type, event, JSON.parse(feed.doc) as FeedDoc);
      if (await writeFeedChannel(w, feed, fields)) changed++;
    }
    return `${changed} feed(s) changed`;
  }

  if (type === 'reaction_added' || type === 'reaction_removed') {
    const item = obj(event.item);
    if (item.type !== 'message') return 'not a message reaction';
    const step = type === 'reaction_added' ? 1 : -1;
    let changed = 0;
    for (const feed of feeds) {
      const id = postIdOf(connection.teamId, feed.id, str(item.ts));
      if (await adjustPost(w, id, (post) => ({ ...post, reactions_count: Math.max(0, (post.reactions_count ?? 0) + step) }))) changed++;
    }
    return `${changed} post(s) counted`;
  }

  if (type !== 'message') return `ignored ${type}`;

  if (event.subtype === 'message_deleted') {
    const previous = obj(event.previous_message);
    const ts = str(event.deleted_ts) || str(previous.ts);
    if (isThreadReply(previous)) return countReply(w, connection, feeds, str(previous.thread_ts), -1, null);
    let deleted = 0;
    for (const feed of feeds) if (await deletePost(w, postIdOf(connection.teamId, feed.id, ts))) deleted++;
    return `${deleted} post(s) deleted`;
  }

  const message = messageOf(event);
  if (!message) return `ignored message ${str(event.subtype)}`;
  if (isThreadReply(message)) {
    // A new reply counts; an edited reply changes no count.
    if (event.subtype === 'message_changed') return 'reply edited';
    return countReply(w, connection, feeds, str(message.thread_ts), 1, str(message.ts));
  }

  const authors = await profileIdsFor(w.tx, w.communityId, connection.teamId, [authorIdOf(message)]);
  const authorProfileId = authors.get(authorIdOf(message));
  if (authorProfileId === undefined) return 'message without an author';
  const records: PostImport[] = [];
  for (const feed of feeds) {
    const doc = JSON.parse(feed.doc) as FeedDoc;
    const id = postIdOf(connection.teamId, feed.id, str(message.ts));
    await lockPost(w, id);
    const stored = await selectStoredPost(w, id);
    // New messages become posts of feeds that sync every message; edits reach posts that exist.
    if (stored === null && !doc.sync_all_incoming_messages) continue;
    const record = postRecordOf(message, {
      teamId: connection.teamId,
      teamUrl: connection.teamUrl,
      channelId,
      feedId: feed.id,
      authorProfileId,
    });
    if (prepared.permalink && record.chat_message) record.chat_message.permalink = prepared.permalink;
    records.push(stored === null ? record : keepCounts(record, stored, message));
  }
  const written = await writePosts(w, records);
  return `${written.created} post(s) created, ${written.updated} updated`;
}

async function selectStoredPost(
  w: CommunityWrite,
  id: string,
): Promise<{ comments: number; reactions: number; latest: EpochMicros; permalink: string } | null> {
  const row = await w.tx
    .selectFrom('posts')
    .select(['doc', 'latest_activity_at'])
    .where('community_id', '=', w.communityId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) return null;
  const doc = JSON.parse(row.doc) as { comments_count: number; reactions_count: number; chat_message: { permalink: string } };
  return {
    comments: doc.comments_count,
    reactions: doc.reactions_count,
    latest: row.latest_activity_at,
    permalink: doc.chat_message.permalink,
  };
}

/** An edit carries the message's content; counts it does not carry stay as events made them. */
function keepCounts(
  record: PostImport,
  stored: { comments: number; reactions: number; latest: EpochMicros; permalink: string },
  message: SlackObject,
): PostImport {
  return {
    ...record,
    comments_count: typeof message.reply_count === 'number' ? record.comments_count : stored.comments,
    reactions_count: Array.isArray(message.reactions) ? record.reactions_count : stored.reactions,
    latest_activity_at: isoKeep(stored.latest, record),
    ...(record.chat_message
      ? { chat_message: { ...record.chat_message, permalink: stored.permalink || record.chat_message.permalink } }
      : {}),
  };
}

/** The stored latest activity (epoch µs) when it is later than the message's own (replies came after it). */
const isoKeep = (stored: EpochMicros, record: PostImport): string | null | undefined =>
  stored > (parseTimestamp(record.latest_activity_at ?? '') ?? Number.NEGATIVE_INFINITY)
    ? formatJsonTimestamp(stored)
    : record.latest_activity_at;

async function countReply(
  w: CommunityWrite,
  connection: SyncConnection,
  feeds: { id: string }[],
  threadTs: string,
  step: 1 | -1,
  replyTs: string | null,
): Promise<string> {
  let changed = 0;
  for (const feed of feeds) {
    const id = postIdOf(connection.teamId, feed.id, threadTs);
    const done = await adjustPost(w, id, (post) => ({
      ...post,
      comments_count: Math.max(0, (post.comments_count ?? 0) + step),
      ...(replyTs === null ? {} : { latest_activity_at: tsToIso(tsLater(replyTs, isoToTs(post.latest_activity_at ?? ''))) }),
    }));
    if (done) changed++;
  }
  return `${changed} thread(s) counted`;
}

/** An ISO instant back as a Slack ts (to compare with a reply's ts). */
function isoToTs(iso: string): string {
  const match = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?/.exec(iso);
  if (!match) return '0';
  const seconds = Math.floor(Date.parse(`${match[1]}Z`) / 1000);
  return `${seconds}.${(match[2] ?? '').padEnd(6, '0').slice(0, 6)}`;
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
