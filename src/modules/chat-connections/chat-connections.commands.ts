import { verifySlackToken } from '../../chat/index.js';
import { storedNow } from '../../shared/clock.js';
import { refuseSentence } from '../../shared/failures.js';
import type { ServiceDeps } from '../../shared/service-deps.js';
import type { DurationMs } from '../../shared/time.js';
import { requireCommunity } from '../communities/communities.reads.js';
import { upsertChatConnection } from './chat-connections.queries.js';

/** What the chat-connections module's commands and reads are given. */
export type ChatConnectionDeps = Pick<ServiceDeps, 'database' | 'clock' | 'chat' | 'secrets'>;

export interface ConnectChatInput {
  communityId: string;
  token: string;
  /** Base URL of the chat platform's Web API (config `chatApiUrl`). */
  apiUrl: string;
  timeoutMs: DurationMs;
}

/** What `chat connect --json` prints: never the token. */
export interface ChatConnectionSummary {
  community_id: string;
  connected: true;
}

// Codes that mean the chat platform could not be asked, as opposed to having refused the token.
const transportCodes = new Set(['timeout', 'chat_unreachable', 'rate_limited', 'chat_http_error', 'chat_bad_response', 'chat_error']);

function rejectionMessage(code: string): string {
  // The code comes from verifySlackToken, which only ever returns snake_case codes: safe to print.
  if (transportCodes.has(code)) {
    return `Could not verify the chat admin token: the chat platform did not answer usefully (${code}). Nothing was stored; try again.`;
  }
  return `The chat platform rejected the chat admin token (${code}). Nothing was stored; check the token and try again.`;
}

/** Verifies a chat admin token with the chat platform, then stores it (with its workspace id) as the community's connection. */
export async function connectChat(
  ctx: Pick<ChatConnectionDeps, 'database' | 'clock' | 'secrets'>,
  input: ConnectChatInput,
): Promise<ChatConnectionSummary> {
  const { database, clock, secrets } = ctx;
  const token = input.token.trim();
  // Never echo the token in a message: it is a credential.
  if (token === '' || /\s/.test(token) || token.length > 1024) {
    throw refuseSentence(['token'], 'single_word', 'The chat admin token must be a single word of at most 1024 characters.');
  }
  await requireCommunity({ database }, input.communityId);
  const verified = await verifySlackToken({ token, apiUrl: input.apiUrl, timeoutMs: input.timeoutMs });
  if (!verified.ok)
    throw refuseSentence(['token'], transportCodes.has(verified.code) ? 'unverified' : 'rejected', rejectionMessage(verified.code));
  await upsertChatConnection(database.db, {
    community_id: input.communityId,
    token: secrets.seal(token),
    team_id: verified.teamId,
    connected_at: storedNow(clock),
  });
  return { community_id: input.communityId, connected: true };
}
