import { type ChatReader, createSlackReader } from '../../../chat/slack-reader.js';
import type { Database } from '../../../db/database.js';
import { type Clock, toIso } from '../../../shared/clock.js';
import type { SecretBox } from '../../../shared/secret-box.js';
import type { DurationMs, EpochMillis } from '../../../shared/time.js';
import type { CommandContext } from '../../../write-path/command-context.js';
import { writeCommunityData } from '../../../write-path/write-community-data.js';
import { recordEvent } from '../../activities/commands/record-event.js';
import { writeFeedChannel } from '../../feeds/feeds.commands.js';
import { selectBoundFeeds } from '../../feeds/feeds.queries.js';
import type { FeedDoc } from '../../feeds/feeds.schemas.js';
import { type Checkpoint, clearCheckpoints, saveCheckpoint, selectCheckpoints } from '../queries/checkpoints.js';
import { missingAuthors } from '../reads/authors.js';
import { requireSyncConnection } from '../reads/connections.js';
import { channelFields, isPostable, type SlackObject, tsLater } from '../rules/slack-records.js';
import type { SyncProgress } from '../rules/sync-progress.js';
import { applyChatMessage, type ThreadReplies } from './apply-chat-message.js';
import { writeProfiles } from './slack-users.js';

export interface BackfillDeps {
  database: Database;
  clock: Clock;
  box: SecretBox;
  apiUrl: string;
  timeoutMs: DurationMs;
  /** One line of progress (the CLI writes it to stderr). */
  progress?: (line: string) => void;
  /** For tests: the reader to use (defaults to Slack's Web API at apiUrl). */
  reader?: ChatReader;
  /**
   * Called with the running counts after each page is written (the server's sync jobs store them as
   * their progress); a throw stops the run there, its checkpoints kept for the next one.
   */
  onPage?: (summary: BackfillSummary) => Promise<void>;
}

/** What a backfill is given: its services and the community it fills. */
export type BackfillContext = CommandContext<BackfillDeps>;

/** What a backfill reads: the whole history, or the messages from `since` on (`chat sync --since`). */
export interface BackfillInput {
  since?: EpochMillis;
}

export interface BackfillSummary extends SyncProgress {
  community_id: string;
  team_id: string;
}

const pageSize = 200;

const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const nextCursor = (answer: SlackObject): string => str((answer.response_metadata as SlackObject | undefined)?.next_cursor);

/**
 * `chat sync`: reads the workspace and writes what changed. Every page is written in one
 * transaction together with the cursor of the next page, so a run killed at any point resumes
 * after the last page it wrote; a finished run clears its checkpoints, and a second run reads
 * everything again but writes nothing that did not change.
 */
export async function runBackfill(ctx: BackfillContext, options: BackfillInput): Promise<BackfillSummary> {
  const { communityId } = ctx;
  const started = Date.now();
  const say = ctx.progress ?? (() => {});
  const connection = await requireSyncConnection(ctx.database.db, ctx.box, communityId);
  let waits = 0;
  const reader =
    ctx.reader ??
    createSlackReader({
      token: connection.botToken,
      apiUrl: ctx.apiUrl,
      timeoutMs: ctx.timeoutMs,
      onWait: (method, seconds) => {
        waits++;
        say(`rate limited on ${method}: waiting ${seconds}s as Slack asks, then pacing ${method} at its tier`);
      },
    });
  const checkpoints = await selectCheckpoints(ctx.database.db, communityId);
  const summary: BackfillSummary = {
    community_id: communityId,
    team_id: connection.teamId,
    resumed: checkpoints.size > 0,
    users: { read: 0, changed: 0 },
    channels: { read: 0, changed: 0 },
    messages: { read: 0, posts_created: 0, posts_updated: 0, skipped: 0 },
    rate_limit_waits: 0,
    seconds: 0,
  };
  if (summary.resumed) say('resuming the previous run from its checkpoints');
  const pageDone = async () => {
    summary.rate_limit_waits = waits;
    summary.seconds = Math.round((Date.now() - started) / 100) / 10;
    await ctx.onPage?.(summary);
  };
  // The run's writes are the sync's, recorded once at its start and once at its end (not per row).
  const syncDeps = { ...ctx, actor: { type: 'chat_sync' as const, id: connection.teamId, label: 'Slack sync' } };
  const write = <T>(change: Parameters<typeof writeCommunityData<T>>[2]) => writeCommunityData(syncDeps, communityId, change);
  await recordEvent(syncDeps, {
    action: 'chat_sync.started',
    target: { type: 'community', id: null, name: null },
    metadata: { team_id: connection.teamId, resumed: summary.resumed, since: options.since === undefined ? null : toIso(options.since) },
  });
  const rate = (n: number, since: number) => `${Math.round(n / Math.max((Date.now() - since) / 1000, 0.001))}/s`;

  // Users first: posts name their authors.
  const usersStarted = Date.now();
  await walk(checkpoints, 'users', async (cursor, state) => {
    const answer = await reader.call('users.list', { limit: pageSize, cursor: cursor || undefined });
    const members = Array.isArray(answer.members) ? (answer.members as SlackObject[]) : [];
    const next = nextCursor(answer);
    const changed = await write(async (w) => {
      const n = await writeProfiles(w, { teamId: connection.teamId, users: members });
      await saveCheckpoint(w.tx, communityId, { ...state, cursor: next, done: next === '', items: state.items + members.length }, w.now);
      return n;
    });
    summary.users.read += members.length;
    summary.users.changed += changed;
    say(`users: ${state.items + members.length} read, ${summary.users.changed} changed (${rate(summary.users.read, usersStarted)})`);
    await pageDone();
    return { next, items: members.length };
  });

  const feeds = await selectBoundFeeds(ctx.database.db, communityId);
  const channels = [...new Set(feeds.map((feed) => feed.chat_channel_id as string))];
  for (const [index, channelId] of channels.entries()) {
    const info = (await reader.call('conversations.info', { channel: channelId, include_num_members: true })).channel as SlackObject;
    summary.channels.read++;
    const bound = feeds.filter((feed) => feed.chat_channel_id === channelId);
    const changed = await write(async (w) => {
      let n = 0;
      for (const feed of bound) if (await writeFeedChannel(w, { feed, fields: channelFields(info) })) n++;
      return n;
    });
    summary.channels.changed += changed;
    await pageDone();
    const synced = bound.filter((feed) => (JSON.parse(feed.doc) as FeedDoc).sync_all_incoming_messages);
    if (synced.length === 0) continue;
    const historyStarted = Date.now();
    let read = 0;
    await walk(checkpoints, `history:${channelId}`, async (cursor, state) => {
      const answer = await reader.call('conversations.history', {
        channel: channelId,
        limit: pageSize,
        cursor: cursor || undefined,
        oldest: options.since === undefined ? undefined : (options.since / 1000).toFixed(6),
      });
      const messages = (Array.isArray(answer.messages) ? (answer.messages as SlackObject[]) : []).filter(isPostable);
      const next = nextCursor(answer);
      const threads = await readThreads(reader, channelId, messages);
      const authors = await missingAuthors(ctx.database.db, reader, communityId, messages);
      const result = await write(async (w) => {
        if (authors.length > 0) await writeProfiles(w, { teamId: connection.teamId, users: authors });
        const written = await applyChatMessage(w, {
          connection,
          channelId,
          feeds: synced,
          change: { kind: 'history', messages, threads },
        });
        await saveCheckpoint(w.tx, communityId, { ...state, cursor: next, done: next === '', items: state.items + messages.length }, w.now);
        return written.kind === 'posts_written' ? written : { created: 0, updated: 0, skipped: 0 };
      });
      read += messages.length;
      summary.messages.read += messages.length;
      summary.messages.posts_created += result.created;
      summary.messages.posts_updated += result.updated;
      summary.messages.skipped += result.skipped;
      say(
        `#${str(info.name) || channelId} (${index + 1}/${channels.length} channels): ${state.items + messages.length} messages, ${summary.messages.posts_created} posts created (${rate(read, historyStarted)})`,
      );
      await pageDone();
      return { next, items: messages.length };
    });
  }
  await clearCheckpoints(ctx.database.db, communityId);
  summary.rate_limit_waits = waits;
  summary.seconds = Math.round((Date.now() - started) / 100) / 10;
  await recordEvent(syncDeps, {
    action: 'chat_sync.completed',
    target: { type: 'community', id: null, name: null },
    metadata: {
      team_id: connection.teamId,
      users: summary.users,
      channels: summary.channels,
      messages: summary.messages,
      seconds: summary.seconds,
    },
  });
  say(`done in ${summary.seconds}s: ${summary.users.read} users, ${summary.messages.read} messages`);
  return summary;
}

/** Pages through one listing from its checkpoint until Slack gives no next cursor. */
async function walk(
  checkpoints: Map<string, Checkpoint>,
  scope: string,
  page: (cursor: string, state: Checkpoint) => Promise<{ next: string; items: number }>,
): Promise<void> {
  let state = checkpoints.get(scope) ?? { scope, cursor: '', done: false, items: 0 };
  while (!state.done) {
    const { next, items } = await page(state.cursor, state);
    state = { scope, cursor: next, done: next === '', items: state.items + items };
  }
}

/** Replies of each thread of a page (conversations.replies, every page of it): how many and the latest. */
async function readThreads(reader: ChatReader, channelId: string, messages: SlackObject[]): Promise<Map<string, ThreadReplies>> {
  const threads = new Map<string, ThreadReplies>();
  for (const message of messages) {
    if (typeof message.reply_count !== 'number' || message.reply_count === 0) continue;
    const ts = str(message.ts);
    let cursor = '';
    let count = 0;
    let latestTs = '';
    do {
      const answer = await reader.call('conversations.replies', { channel: channelId, ts, limit: pageSize, cursor: cursor || undefined });
      for (const reply of Array.isArray(answer.messages) ? (answer.messages as SlackObject[]) : []) {
        if (str(reply.ts) === ts) continue;
        count++;
        latestTs = latestTs === '' ? str(reply.ts) : tsLater(latestTs, str(reply.ts));
      }
      cursor = nextCursor(answer);
    } while (cursor !== '');
    threads.set(ts, { count, latestTs });
  }
  return threads;
}
