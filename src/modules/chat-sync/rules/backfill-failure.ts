import { ChatReadError } from '../../../chat/slack-reader.js';
import { Refused } from '../../../shared/failures.js';

/** The sentence a failed backfill is recorded with: Slack's method and code, or the refusal; never a token. */
export function backfillFailure(error: unknown): string {
  if (error instanceof ChatReadError) return `Slack answered ${error.method} with ${error.code}`;
  if (error instanceof Refused) return error.message;
  return error instanceof Error ? error.message.slice(0, 500) : String(error);
}
