import { createSlackReader } from '../../../chat/slack-reader.js';
import { refuseSentence } from '../../../shared/failures.js';
import type { SecretBox } from '../../../shared/secret-box.js';
import type { DurationMs } from '../../../shared/time.js';
import type { CommandContext, OperatorContext } from '../../../write-path/command-context.js';
import { selectChatConnectionTokens, updateChatConnectionToken } from '../../chat-connections/chat-connections.queries.js';
import {
  selectOtherHolderOfTeam,
  selectSealedSyncSecrets,
  updateSealedSyncSecrets,
  upsertSyncConnectionRow,
} from '../queries/connections.js';
import { selectSyncConnection } from '../reads/connections.js';

export interface ConnectSyncInput {
  botToken: string | undefined;
  signingSecret: string | undefined;
  apiAppId: string | undefined;
  apiUrl: string;
  timeoutMs: DurationMs;
}

/** Where the chat sync's secrets are stored: the box that seals them (SECRETS_KEY). */
export type SecretsContext = { box: SecretBox };

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
export async function connectSync(ctx: CommandContext<SecretsContext>, input: ConnectSyncInput): Promise<{ team_id: string }> {
  const { box, communityId } = ctx;
  const { db } = ctx.database;
  const now = ctx.clock.now();
  const stored = await selectSyncConnection(db, box, communityId);
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
  const holder = await selectOtherHolderOfTeam(db, teamId, communityId);
  if (holder)
    throw refuseSentence(
      ['bot_token'],
      'workspace_taken',
      `Workspace ${teamId} is already connected to community ${holder.community_id}; events are routed by workspace.`,
    );

  const row = {
    community_id: communityId,
    team_id: teamId,
    team_url: teamUrl,
    api_app_id: input.apiAppId ?? stored?.apiAppId ?? null,
    bot_user_id: botUserId,
    bot_token: box.seal(botToken),
    signing_secret: box.seal(signingSecret),
    connected_at: now,
  };
  await upsertSyncConnectionRow(db, row);
  return { team_id: teamId };
}

/** Re-seals every stored chat secret (bot tokens, signing secrets, admin tokens) with the current SECRETS_KEY (key rotation). */
export async function resealSecrets({ database, box }: OperatorContext<SecretsContext>): Promise<number> {
  const { db } = database;
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
