import type { Command } from 'commander';
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import { UserInputError } from '../errors.js';
import { connectChat } from '../modules/chat-connections/chat-connections.commands.js';
import { addFeed } from '../modules/chat-sync/commands/bound-feeds.js';
import { connectSync, resealSecrets } from '../modules/chat-sync/commands/connections.js';
import { runRecordedBackfill } from '../modules/chat-sync/commands/sync-jobs.js';
import { listFeeds } from '../modules/chat-sync/reads/bound-feeds.js';
import { requireCommunity } from '../modules/communities/communities.reads.js';
import { systemClock } from '../shared/clock.js';
import { SecretBox } from '../shared/secret-box.js';
import { type EpochMillis, epochMillis } from '../shared/time.js';
import { cliActor, withDatabase } from './context.js';
import { asOperatorErrors, printResult, printRows } from './output.js';

/** What `chat connect --json` prints: never a token or secret. */
export interface ConnectResult {
  community_id: string;
  connected: true;
  team_id?: string;
  invitations?: boolean;
  sync?: boolean;
}

/**
 * `chat connect`: the admin token (invitations) and the bot token with its signing secret (sync,
 * events) are independent; one command may set either or both. With only --token the answer is
 * exactly what it always was.
 */
export async function connectChatWorkspace(
  database: Database,
  config: Config,
  options: { community: string; token?: string; botToken?: string; signingSecret?: string; appId?: string },
): Promise<ConnectResult> {
  await requireCommunity({ database }, options.community);
  const result: ConnectResult = { community_id: options.community, connected: true };
  if (options.botToken !== undefined || options.signingSecret !== undefined || options.appId !== undefined) {
    const synced = await connectSync(
      { database, clock: systemClock, box: new SecretBox(config.secrets), communityId: options.community },
      {
        botToken: options.botToken,
        signingSecret: options.signingSecret,
        apiAppId: options.appId,
        apiUrl: config.chatApiUrl,
        timeoutMs: config.chatTimeoutMs,
      },
    );
    result.team_id = synced.team_id;
    result.sync = true;
  }
  if (options.token !== undefined) {
    await connectChat(
      { database, clock: systemClock, secrets: new SecretBox(config.secrets) },
      {
        communityId: options.community,
        token: options.token,
        apiUrl: config.chatApiUrl,
        timeoutMs: config.chatTimeoutMs,
      },
    );
    if (result.sync) result.invitations = true;
  }
  return result;
}

function parseSince(value: string | undefined): EpochMillis | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new UserInputError('--since must be a date such as 2025-01-31 or 2025-01-31T12:00:00Z.');
  return epochMillis(ms);
}

/** `chat sync` and `chat reseal-secrets`, added to the `chat` command group. */
export function registerChatSyncCommands(program: Command): void {
  const chat = program.commands.find((command) => command.name() === 'chat') ?? program.command('chat');
  chat
    .command('sync')
    .description('backfill the community from its Slack workspace (users, bound channels, their messages); resumable, idempotent')
    .requiredOption('--community <id>', 'community id')
    .option('--since <date>', 'only messages from this date on')
    .option('--json', 'print one JSON summary')
    .action(async (options: { community: string; since?: string; json?: boolean }) => {
      const since = parseSince(options.since);
      const summary = await asOperatorErrors(() =>
        withDatabase(async (database, config) => {
          await requireCommunity({ database }, options.community);
          // The same run as a job of the server's (POST /admin/v0/chat/sync_jobs), recorded as the last sync.
          return runRecordedBackfill(
            {
              database,
              clock: systemClock,
              box: new SecretBox(config.secrets),
              apiUrl: config.chatApiUrl,
              timeoutMs: config.chatTimeoutMs,
              progress: (line) => process.stderr.write(`${line}\n`),
              communityId: options.community,
            },
            { ...(since === undefined ? {} : { since }), jobId: null },
          );
        }),
      );
      printResult(
        { json: Boolean(options.json) },
        summary,
        `Synced ${summary.users.read} users (${summary.users.changed} changed), ${summary.channels.read} channels, ${summary.messages.read} messages (${summary.messages.posts_created} posts created, ${summary.messages.posts_updated} updated) in ${summary.seconds}s.`,
      );
    });
  chat
    .command('reseal-secrets')
    .description('re-encrypt every stored chat token and signing secret with the current SECRETS_KEY (after a rotation)')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const resealed = await withDatabase((database, config) => {
        if (config.secrets.key === null) throw new UserInputError('Set SECRETS_KEY (and SECRETS_KEY_PREVIOUS to the old key) first.');
        return resealSecrets({ database, clock: systemClock, box: new SecretBox(config.secrets) });
      });
      printResult({ json: Boolean(options.json) }, { resealed }, `Re-sealed the secrets of ${resealed} connection(s).`);
    });
}

/** `feed add` and `feed list`. */
export function registerFeedCommands(program: Command): void {
  const feed = program.command('feed').description('feeds bound to chat channels');
  feed
    .command('add')
    .description("create a feed bound to a Slack channel (label from the channel's name when absent)")
    .requiredOption('--community <id>', 'community id')
    .requiredOption('--channel <id>', 'Slack channel id (C...)')
    .option('--label <text>', 'the feed label')
    .option('--sync-all', 'every new message of the channel becomes a post (sync_all_incoming_messages)')
    .option('--json', 'print JSON')
    .action(async (options: { community: string; channel: string; label?: string; syncAll?: boolean; json?: boolean }) => {
      const added = await asOperatorErrors(() =>
        withDatabase((database, config) =>
          addFeed(
            { database, clock: systemClock, box: new SecretBox(config.secrets), actor: cliActor(), communityId: options.community },
            {
              channelId: options.channel,
              label: options.label,
              syncAll: Boolean(options.syncAll),
              apiUrl: config.chatApiUrl,
              timeoutMs: config.chatTimeoutMs,
            },
          ),
        ),
      );
      printResult({ json: Boolean(options.json) }, added, `Created feed ${added.id} "${added.label}" bound to ${added.chat_channel_id}.`);
    });
  feed
    .command('list')
    .description('the feeds of a community')
    .requiredOption('--community <id>', 'community id')
    .option('--json', 'print JSON')
    .action(async (options: { community: string; json?: boolean }) => {
      const feeds = await asOperatorErrors(() => withDatabase((database) => listFeeds({ database }, options.community)));
      printRows({ json: Boolean(options.json) }, feeds, [
        'id',
        'label',
        'chat_channel_id',
        'chat_channel_name',
        'sync_all_incoming_messages',
      ]);
    });
}
