import { verifySlackToken } from '../../../chat/index.js';
import { ChatReadError, createSlackReader } from '../../../chat/slack-reader.js';
import type { Database } from '../../../db/database.js';
import { type Clock, toIso } from '../../../shared/clock.js';
import type { SecretBox } from '../../../shared/secret-box.js';
import { type DurationMs, type EpochMillis, epochMillis } from '../../../shared/time.js';
import { selectChatConnection } from '../../chat-connections/chat-connections.queries.js';
import { selectBoundFeeds } from '../../feeds/feeds.queries.js';
import type { FeedDoc } from '../../feeds/feeds.schemas.js';
import { selectConnectionRowOfCommunity } from '../queries/connections.js';
import { communityQueueState } from '../queries/event-queue.js';
import { selectActiveJob } from '../queries/jobs.js';
import { saveSyncStatus, selectSyncStatus } from '../queries/status.js';
import { type ChatSyncJobView, jobView } from '../records/sync-jobs.js';

/*
 * The console's Slack status (`GET /admin/v0/chat/status`, docs/chat.md "Sync jobs and status"):
 * what is stored and what was last learnt, read without asking Slack; `check` asks Slack first
 * (auth.test with each token, conversations.info of each bound channel) and stores the answers.
 */

export interface ChatStatusDeps {
  database: Database;
  clock: Clock;
  box: SecretBox;
  apiUrl: string;
  timeoutMs: DurationMs;
}

export interface TokenState {
  stored: boolean;
  /** As last checked: null when no token is stored. */
  valid: boolean | null;
  checked_at: string | null;
  /** Slack's code when the last check failed. */
  error: string | null;
}

export interface ChannelState {
  channel_id: string;
  name: string | null;
  feed_ids: string[];
  /** Whether the bot is a member of the channel, as last checked; null when never checked. */
  bot_is_member: boolean | null;
  checked_at: string | null;
  error: string | null;
}

export interface ChatStatus {
  community_id: string;
  team_id: string | null;
  team_url: string | null;
  bot_user_id: string | null;
  admin_token: TokenState;
  bot_token: TokenState;
  channels: ChannelState[];
  last_sync: { at: string; result: 'succeeded' | 'failed'; error: string | null; job_id: string | null } | null;
  active_job: ChatSyncJobView | null;
  event_queue: { length: number; oldest_received_at: string | null; lag_seconds: number | null };
}

interface StoredChannel {
  channel_id: string;
  bot_is_member: boolean | null;
  error: string | null;
}

/**
 * A token's state: a connect checks the token before storing it, so a token stored after the
 * last check is valid as of its connection; otherwise the last check says.
 */
function tokenState(connectedAt: EpochMillis | null, checkedAt: EpochMillis | null, error: string | null): TokenState {
  if (connectedAt === null) return { stored: false, valid: null, checked_at: null, error: null };
  if (checkedAt === null || connectedAt > checkedAt) return { stored: true, valid: true, checked_at: toIso(connectedAt), error: null };
  return { stored: true, valid: error === null, checked_at: toIso(checkedAt), error };
}

const ms = (value: number | null | undefined): EpochMillis | null =>
  value === null || value === undefined ? null : epochMillis(Number(value));

export async function chatStatus(deps: ChatStatusDeps, communityId: string, options: { check?: boolean } = {}): Promise<ChatStatus> {
  if (options.check) await checkChatConnection(deps, communityId);
  const { db } = deps.database;
  const [bot, admin, stored, feeds, active, queue] = await Promise.all([
    selectConnectionRowOfCommunity(db, communityId),
    selectChatConnection(db, communityId),
    selectSyncStatus(db, communityId),
    selectBoundFeeds(db, communityId),
    selectActiveJob(db, communityId),
    communityQueueState(db, communityId),
  ]);
  const checkedChannels = new Map(
    (stored?.channels ? (JSON.parse(stored.channels) as StoredChannel[]) : []).map((channel) => [channel.channel_id, channel]),
  );
  const channels = new Map<string, ChannelState>();
  for (const feed of feeds) {
    const id = feed.chat_channel_id as string;
    const known = channels.get(id);
    if (known) {
      known.feed_ids.push(feed.id);
      continue;
    }
    const checked = checkedChannels.get(id);
    const channelsCheckedAt = ms(stored?.channels_checked_at);
    channels.set(id, {
      channel_id: id,
      name: (JSON.parse(feed.doc) as FeedDoc).chat_channel_name ?? null,
      feed_ids: [feed.id],
      bot_is_member: checked?.bot_is_member ?? null,
      checked_at: checked && channelsCheckedAt !== null ? toIso(channelsCheckedAt) : null,
      error: checked?.error ?? null,
    });
  }
  const now = deps.clock.now();
  const lastSyncAt = ms(stored?.last_sync_at);
  return {
    community_id: communityId,
    team_id: bot?.team_id ?? admin?.team_id ?? null,
    team_url: bot?.team_url || null,
    bot_user_id: bot?.bot_user_id ?? null,
    admin_token: tokenState(
      admin ? epochMillis(Math.floor(Number(admin.connected_at) / 1000)) : null,
      ms(stored?.admin_token_checked_at),
      stored?.admin_token_error ?? null,
    ),
    bot_token: tokenState(
      bot ? epochMillis(Number(bot.connected_at)) : null,
      ms(stored?.bot_token_checked_at),
      stored?.bot_token_error ?? null,
    ),
    // By name (then id): the feeds' order ties when they were bound in one instant.
    channels: [...channels.values()].sort((a, b) => (a.name ?? '').localeCompare(b.name ?? '') || a.channel_id.localeCompare(b.channel_id)),
    last_sync:
      lastSyncAt === null || !stored?.last_sync_result
        ? null
        : { at: toIso(lastSyncAt), result: stored.last_sync_result, error: stored.last_sync_error, job_id: stored.last_sync_job_id },
    active_job: active ? jobView(active) : null,
    event_queue: {
      length: queue.length,
      oldest_received_at: queue.oldest === null ? null : toIso(queue.oldest),
      lag_seconds: queue.oldest === null ? null : Math.max(0, Math.round((now - queue.oldest) / 100) / 10),
    },
  };
}

const codeOf = (error: unknown): string => (error instanceof ChatReadError ? error.code : 'chat_error');

/**
 * Asks Slack now: auth.test with the admin token and with the bot token, conversations.info of each
 * bound channel (its `is_member` is the bot's presence), and stores what it learnt. Never throws
 * for Slack's answers: a failure is stored as its code.
 */
export async function checkChatConnection(deps: ChatStatusDeps, communityId: string): Promise<void> {
  const { db } = deps.database;
  const now = deps.clock.now();
  const [bot, admin, feeds] = await Promise.all([
    selectConnectionRowOfCommunity(db, communityId),
    selectChatConnection(db, communityId),
    selectBoundFeeds(db, communityId),
  ]);
  if (admin) {
    const verified = await verifySlackToken({ token: deps.box.open(admin.token), apiUrl: deps.apiUrl, timeoutMs: deps.timeoutMs });
    await saveSyncStatus(db, communityId, { admin_token_checked_at: now, admin_token_error: verified.ok ? null : verified.code });
  }
  if (!bot) return;
  const reader = createSlackReader({ token: deps.box.open(bot.bot_token), apiUrl: deps.apiUrl, timeoutMs: deps.timeoutMs });
  let botError: string | null = null;
  try {
    await reader.call('auth.test', {});
  } catch (error) {
    botError = codeOf(error);
  }
  await saveSyncStatus(db, communityId, { bot_token_checked_at: now, bot_token_error: botError });
  if (botError !== null) return;
  const channels: StoredChannel[] = [];
  for (const channelId of new Set(feeds.map((feed) => feed.chat_channel_id as string))) {
    try {
      const info = (await reader.call('conversations.info', { channel: channelId })).channel as Record<string, unknown> | undefined;
      channels.push({ channel_id: channelId, bot_is_member: typeof info?.is_member === 'boolean' ? info.is_member : null, error: null });
    } catch (error) {
      // not_in_channel / channel_not_found for a private channel the bot was not invited to.
      const code = codeOf(error);
      channels.push({
        channel_id: channelId,
        bot_is_member: code === 'not_in_channel' || code === 'channel_not_found' ? false : null,
        error: code,
      });
    }
  }
  await saveSyncStatus(db, communityId, { channels_checked_at: now, channels: JSON.stringify(channels) });
}
