import type { EpochMicros } from '../../../shared/time.js';
import { formatJsonTimestamp, parseTimestamp } from '../../../shared/timestamps.js';
import type { CommunityWrite } from '../../../write-path/write-community-data.js';
import type { FeedRow } from '../../feeds/feeds.queries.js';
import type { FeedDoc } from '../../feeds/feeds.schemas.js';
import { adjustPost, deletePost, lockPost, writePosts } from '../../posts/posts.commands.js';
import { selectPostDocAndActivity } from '../../posts/posts.queries.js';
import type { PostImport } from '../../posts/posts.schemas.js';
import { profileIdsFor } from '../reads/authors.js';
import type { SyncConnection } from '../reads/connections.js';
import type { ChatEventOutcome } from '../rules/event-outcome.js';
import { authorIdOf, isThreadReply, postIdOf, postRecordOf, type SlackObject, tsLater, tsToIso } from '../rules/slack-records.js';

const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The replies of a thread as the backfill counted them (conversations.replies): how many, and the latest's ts. */
export interface ThreadReplies {
  count: number;
  latestTs: string;
}

/**
 * A message of a bound channel that was posted, edited or deleted (an Events API delivery's
 * message), or a page of the channel's history as the backfill read it (its top-level messages,
 * with the replies of their threads counted).
 */
export type ChatMessageChange =
  | { kind: 'posted' | 'edited'; message: SlackObject; permalink: string | null }
  | { kind: 'deleted'; previous: SlackObject; ts: string }
  | { kind: 'history'; messages: readonly SlackObject[]; threads: ReadonlyMap<string, ThreadReplies> };

/** A message's change and where it lands: the connection's workspace, the channel and the channel's feeds. */
export interface ChatMessageInput {
  connection: SyncConnection;
  channelId: string;
  feeds: readonly FeedRow[];
  change: ChatMessageChange;
}

/**
 * Applies a channel message's change to the posts of the channel's feeds, inside the write path:
 * a new message becomes a post of the feeds that sync every message, an edit reaches the posts that
 * exist (keeping the counts it does not carry), a delete removes them; a thread reply only counts.
 * A history page becomes posts of the feeds that sync every message, as Slack has them now (counts
 * included), all written at once.
 */
export async function applyChatMessage(
  w: CommunityWrite,
  { connection, channelId, feeds, change }: ChatMessageInput,
): Promise<ChatEventOutcome> {
  if (change.kind === 'deleted') {
    const { previous, ts } = change;
    if (isThreadReply(previous)) return countReply(w, connection, feeds, str(previous.thread_ts), -1, null);
    let deleted = 0;
    for (const feed of feeds) if (await deletePost(w, postIdOf(connection.teamId, feed.id, ts))) deleted++;
    return { kind: 'posts_deleted', posts: deleted };
  }

  if (change.kind === 'history') return writeHistory(w, connection, channelId, feeds, change.messages, change.threads);

  const { message } = change;
  if (isThreadReply(message)) {
    // A new reply counts; an edited reply changes no count.
    if (change.kind === 'edited') return { kind: 'reply_edited' };
    return countReply(w, connection, feeds, str(message.thread_ts), 1, str(message.ts));
  }

  const authors = await profileIdsFor(w.tx, w.communityId, connection.teamId, [authorIdOf(message)]);
  const authorProfileId = authors.get(authorIdOf(message));
  if (authorProfileId === undefined) return { kind: 'ignored', reason: 'no_author' };
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
    if (change.permalink && record.chat_message) record.chat_message.permalink = change.permalink;
    records.push(stored === null ? record : keepCounts(record, stored, message));
  }
  return { kind: 'posts_written', ...(await writePosts(w, records)) };
}

/**
 * The backfill's page: its posts in every feed that syncs every message, written by one writePosts
 * (one batch of statements for the page, not one per message, keeps the backfill's speed).
 */
async function writeHistory(
  w: CommunityWrite,
  connection: SyncConnection,
  channelId: string,
  feeds: readonly FeedRow[],
  messages: readonly SlackObject[],
  threads: ReadonlyMap<string, ThreadReplies>,
): Promise<ChatEventOutcome> {
  const authorIds = await profileIdsFor(w.tx, w.communityId, connection.teamId, [...new Set(messages.map(authorIdOf).filter(Boolean))]);
  const synced = feeds.filter((feed) => (JSON.parse(feed.doc) as FeedDoc).sync_all_incoming_messages);
  const records = synced.flatMap((feed) =>
    messages.flatMap((message) => {
      const authorProfileId = authorIds.get(authorIdOf(message));
      if (authorProfileId === undefined) return [];
      const thread = threads.get(str(message.ts));
      const context = { teamId: connection.teamId, teamUrl: connection.teamUrl, channelId, feedId: feed.id, authorProfileId };
      return [postRecordOf(message, thread ? { ...context, comments: thread } : context)];
    }),
  );
  return { kind: 'posts_written', ...(await writePosts(w, records)) };
}

async function selectStoredPost(
  w: CommunityWrite,
  id: string,
): Promise<{ comments: number; reactions: number; latest: EpochMicros; permalink: string } | null> {
  const row = await selectPostDocAndActivity(w.tx, w.communityId, id);
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
  feeds: readonly { id: string }[],
  threadTs: string,
  step: 1 | -1,
  replyTs: string | null,
): Promise<ChatEventOutcome> {
  let changed = 0;
  for (const feed of feeds) {
    const id = postIdOf(connection.teamId, feed.id, threadTs);
    const done = await adjustPost(w, {
      postId: id,
      change: (post) => ({
        ...post,
        comments_count: Math.max(0, (post.comments_count ?? 0) + step),
        ...(replyTs === null ? {} : { latest_activity_at: tsToIso(tsLater(replyTs, isoToTs(post.latest_activity_at ?? ''))) }),
      }),
    });
    if (done) changed++;
  }
  return { kind: 'replies_counted', threads: changed };
}

/** An ISO instant back as a Slack ts (to compare with a reply's ts). */
function isoToTs(iso: string): string {
  const match = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?/.exec(iso);
  if (!match) return '0';
  const seconds = Math.floor(Date.parse(`${match[1]}Z`) / 1000);
  return `${seconds}.${(match[2] ?? '').padEnd(6, '0').slice(0, 6)}`;
}
