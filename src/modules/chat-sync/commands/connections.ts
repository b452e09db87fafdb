import { createSlackReader } from '../../../chat/slack-reader.js';
import type { Db, Tx } from '../../../db/database.js';
import type { ChatSyncConnectionsTable } from '../../../db/schema.js';
import { refuse, refuseSentence } from '../../../shared/failures.js';
import type { SecretBox } from '../../../shared/secret-box.js';
import type { DurationMs, EpochMillis } from '../../../shared/time.js';
import { selectChatConnectionTokens, updateChatConnectionToken } from '../../chat-connections/chat-connections.queries.js';
import {
  selectConnectionRowOfCommunity,
  selectConnectionRowOfTeam,
  selectOtherHolderOfTeam,
  selectSealedSyncSecrets,
  updateSealedSyncSecrets,
  upsertSyncConnectionRow,
} from '../queries/connections.js';

/** A community's Slack bot connection with its secrets opened (only ever held in memory). */
export interface SyncConnection {
  communityId: string;
  teamId: string;
  teamUrl: string;
  apiAppId: string | null;
  botUserId: string | null;
  botToken: string;
  signingSecret: string;
}

function opened(row: ChatSyncConnectionsTable, box: SecretBox): SyncConnection {
  return {
    communityId: row.community_id,
    teamId: row.team_id,
    teamUrl: row.team_url,
    apiAppId: row.api_app_id,
    botUserId: row.bot_user_id,
    botToken: box.open(row.bot_token),
    signingSecret: box.open(row.signing_secret),
  };
}

export async function selectSyncConnection(db: Db | Tx, box: SecretBox, communityId: string): Promise<SyncConnection | undefined> {
  const row = await selectConnectionRowOfCommunity(db, communityId);
  return row && opened(row, box);
}

/** The connection of a workspace (Events API deliveries name their team). */
export async function selectSyncConnectionByTeam(db: Db | Tx, box: SecretBox, teamId: string): Promise<SyncConnection | undefined> {
  const row = await selectConnectionRowOfTeam(db, teamId);
  return row && opened(row, box);
}

export async function requireSyncConnection(db: Db | Tx, box: SecretBox, communityId: string): Promise<SyncConnection> {
  const connection = await selectSyncConnection(db, box, communityId);
  if (!connection) {
    throw refuse(
      [],
      'not_connected',
      `Community ${communityId} has no chat bot connection: run community-admin chat connect --community ${communityId} --bot-token xoxb-... --signing-secret ...`,
    );
  }
  return connection;
}

export interface ConnectSyncInput {
  communityId: string;
  botToken: string | undefined;
  signingSecret: string | undefined;
  apiAppId: string | undefined;
  apiUrl: string;
  timeoutMs: DurationMs;
  now: EpochMillis;
}

const secretNames = { bot_token: 'bot token', signing_secret: 'signing secret' } as const;

const secretShape = (value: string, field: keyof typeof secretNames): string => {
  const trimmed = value.trim();
  // Never echo the value: it is a credential.
  if (trimmed === '' || /\s/.test(trimmed) || trimmed.length > 1024)
    throw refuseSentence([field], 'single_word', `The ${secretNames[field]} must be a single word of at most 1024 characters.`);
  return trimmed;
};

/**
 * Stores (or updates) the bot side of a community's connection: the bot token is checked with
 * auth.test, which also gives the workspace's team id and address. A signing secret alone updates
 * the stored one. Both are sealed with SECRETS_KEY when set.
 */
export async function connectSync(db: Db, box: SecretBox, input: ConnectSyncInput): Promise<{ team_id: string }> {
  const stored = await selectSyncConnection(db, box, input.communityId);
  const botToken = input.botToken === undefined ? stored?.botToken : secretShape(input.botToken, 'bot_token');
  const signingSecret = input.signingSecret === undefined ? stored?.signingSecret : secretShape(input.signingSecret, 'signing_secret');
  if (botToken === undefined)
    throw refuseSentence(
      ['bot_token'],
      'required',
      'Give --bot-token (xoxb-...) with --signing-secret: the community has no bot connection yet.',
    );
  if (signingSecret === undefined)
    throw refuseSentence(
      ['signing_secret'],
      'required',
      'Give --signing-secret with --bot-token (the Slack app\'s "Signing Secret", Basic Information page).',
    );
  if (input.apiAppId !== undefined && !/^A[A-Z0-9]{1,31}$/.test(input.apiAppId))
    throw refuseSentence(['api_app_id'], 'format', '--app-id must be a Slack app id such as A0123ABCD.');

  let teamId = stored?.teamId ?? '';
  let teamUrl = stored?.teamUrl ?? '';
  let botUserId = stored?.botUserId ?? null;
  if (input.botToken !== undefined || !stored) {
    const reader = createSlackReader({ token: botToken, apiUrl: input.apiUrl, timeoutMs: input.timeoutMs });
    let answer: Record<string, unknown>;
    try {
      answer = await reader.call('auth.test', {});
    } catch (error) {
      const code = error instanceof Error && 'code' in error ? String(error.code) : 'chat_error';
      throw refuseSentence(
        ['bot_token'],
        'rejected',
        `The chat platform did not accept the bot token (${code}). Nothing was stored; check the token and try again.`,
      );
    }
    if (typeof answer.team_id !== 'string' || answer.team_id === '')
      throw refuseSentence(['bot_token'], 'unverified', 'auth.test answered without a team id; nothing was stored.');
    teamId = answer.team_id;
    teamUrl = typeof answer.url === 'string' ? answer.url : '';
    botUserId = typeof answer.user_id === 'string' ? answer.user_id : null;
  }
  const holder = await selectOtherHolderOfTeam(db, teamId, input.communityId);
  if (holder)
    throw refuseSentence(
      ['bot_token'],
      'workspace_taken',
      `Workspace ${teamId} is already connected to community ${holder.community_id}; events are routed by workspace.`,
    );

  const row = {
    community_id: input.communityId,
    team_id: teamId,
    team_url: teamUrl,
    api_app_id: input.apiAppId ?? stored?.apiAppId ?? null,
    bot_user_id: botUserId,
    bot_token: box.seal(botToken),
    signing_secret: box.seal(signingSecret),
    connected_at: input.now,
  };
  await upsertSyncConnectionRow(db, row);
  return { team_id: teamId };
}

/** Re-seals every stored chat secret (bot tokens, signing secrets, admin tokens) with the current SECRETS_KEY (key rotation). */
export async function resealSecrets(db: Db, box: SecretBox): Promise<number> {
  const rows = await selectSealedSyncSecrets(db);
  let changed = 0;
  for (const row of rows) {
    if (box.isCurrent(row.bot_token) && box.isCurrent(row.signing_secret)) continue;
    await updateSealedSyncSecrets(db, row.community_id, box.seal(box.open(row.bot_token)), box.seal(box.open(row.signing_secret)));
    changed++;
  }
  // The admin token of invitations (chat_connections) is sealed with the same key.
  const admins = await selectChatConnectionTokens(db);
  for (const row of admins) {
    if (box.isCurrent(row.token)) continue;
    await updateChatConnectionToken(db, row.community_id, box.seal(box.open(row.token)));
    changed++;
  }
  return changed;
}
