import type * as SlackSdk from '@slack/web-api';
import { lazyRequire } from '../shared/lazy-require.js';
import type { DurationMs } from '../shared/time.js';

const slackSdk = lazyRequire<typeof SlackSdk>('@slack/web-api');

/**
 * What went wrong with one Web API call, reduced to what the port reports. Built only from codes,
 * status numbers and fixed sentences: the SDK's errors carry the request configuration (and so the
 * Authorization header), so they are inspected here and never passed on, logged or chained.
 */
export type SlackFailure =
  /** Slack answered `{ok: false, error}`. */
  | { kind: 'platform'; code: string; needed: string | null }
  /** Slack could not be asked or did not answer usefully. */
  | { kind: 'transport'; code: TransportCode; detail: string };

export type TransportCode = 'rate_limited' | 'timeout' | 'chat_unreachable' | 'chat_http_error' | 'chat_bad_response' | 'chat_error';

/** Rejection of an operation that outlived its deadline (see withDeadline). */
class DeadlineExceededError extends Error {
  constructor(ms: DurationMs) {
    super(`The chat platform did not answer within ${ms} ms.`);
    this.name = 'DeadlineExceededError';
  }
}

/** Runs `work` but settles no later than `ms` after the call, whatever the network does. */
export async function withDeadline<T>(ms: DurationMs, work: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineExceededError(ms)), ms);
  });
  try {
    return await Promise.race([work(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function stringField(value: unknown, key: string): string | null {
  if (!isRecord(value)) return null;
  const field = value[key];
  return typeof field === 'string' ? field : null;
}

// Slack's error codes are short snake_case words. Anything else in `error` is not Slack speaking
// (the SDK puts an unparsable body there, e.g. a proxy's HTML page) and must not become a code.
const SLACK_CODE = /^[a-z0-9_]{1,64}$/;

// Codes that Node and axios use for a request that ran out of time or was aborted by our signal.
const TIMEOUT_CODES = new Set(['ECONNABORTED', 'ETIMEDOUT', 'ESOCKETTIMEDOUT', 'ERR_CANCELED', 'ABORT_ERR']);

function transport(code: TransportCode, detail: string): SlackFailure {
  return { kind: 'transport', code, detail };
}

function classifyRequestError(original: unknown): SlackFailure {
  const code = stringField(original, 'code');
  const name = stringField(original, 'name');
  if ((code !== null && TIMEOUT_CODES.has(code)) || name === 'CanceledError' || name === 'AbortError') {
    return transport('timeout', 'The chat platform did not answer in time.');
  }
  return transport('chat_unreachable', 'The chat platform could not be reached.');
}

/** Reduces anything a WebClient call (wrapped in withDeadline) can reject with to a SlackFailure. */
export function classifySlackError(error: unknown): SlackFailure {
  if (error instanceof DeadlineExceededError) {
    return transport('timeout', 'The chat platform did not answer in time.');
  }
  const { ErrorCode } = slackSdk();
  switch (stringField(error, 'code')) {
    case ErrorCode.PlatformError: {
      const data = isRecord(error) ? error.data : undefined;
      const slackCode = stringField(data, 'error');
      if (slackCode === 'ratelimited') {
        return transport('rate_limited', 'The chat platform is rate limiting requests; try again later.');
      }
      if (slackCode === null || !SLACK_CODE.test(slackCode)) {
        return transport('chat_bad_response', 'The chat platform answered with an unexpected response.');
      }
      return { kind: 'platform', code: slackCode, needed: stringField(data, 'needed') };
    }
    case ErrorCode.RateLimitedError:
      return transport('rate_limited', 'The chat platform is rate limiting requests; try again later.');
    case ErrorCode.HTTPError: {
      const status = isRecord(error) && typeof error.statusCode === 'number' ? error.statusCode : 0;
      return transport('chat_http_error', `The chat platform answered with HTTP status ${status}.`);
    }
    case ErrorCode.RequestError:
      return classifyRequestError(isRecord(error) ? error.original : undefined);
    default:
      break;
  }
  // A 429 without a usable Retry-After header is rejected by the SDK as a plain Error.
  const message = stringField(error, 'message') ?? '';
  if (message.startsWith('Retry header did not contain a valid timeout')) {
    return transport('rate_limited', 'The chat platform is rate limiting requests; try again later.');
  }
  return transport('chat_error', 'The call to the chat platform failed unexpectedly.');
}

// One sentence per Slack error code the invitation flow is likely to meet.
const PLATFORM_DETAILS: Record<string, string> = {
  invalid_email: 'Slack rejected the email address as invalid.',
  failed_to_validate_channels: 'Slack rejected one or more of the channel ids.',
  channel_not_found: 'Slack could not find one of the channels.',
  user_disabled: 'The user is deactivated in the Slack workspace.',
  invalid_auth: 'Slack rejected the chat admin token; reconnect the workspace.',
  not_authed: 'No chat admin token was sent to Slack.',
  token_revoked: 'The chat admin token has been revoked; reconnect the workspace.',
  account_inactive: 'The chat admin token belongs to a deactivated user or workspace.',
  missing_scope: 'The chat admin token lacks a required scope.',
  not_allowed_token_type: 'Slack does not accept this kind of token for invitations; use an admin user token.',
  no_permission: 'The chat admin token is not allowed to invite users.',
  failed_to_validate_caller: 'The chat admin token is not allowed to invite users.',
  is_bot: 'Slack does not let a bot token invite users; use an admin user token.',
  feature_not_enabled: 'The Slack admin APIs are not enabled for this workspace (Enterprise plan required).',
  team_not_found: 'Slack could not find the workspace of the chat connection.',
  failed_to_validate_team: 'Slack rejected the workspace of the chat connection.',
  failed_to_send_invite: 'Slack could not send the invitation.',
  invalid_arguments: 'Slack rejected the invitation request as invalid.',
  internal_error: 'Slack had an internal error; try again later.',
  fatal_error: 'Slack had an internal error; try again later.',
};

/** A detail sentence for a Slack error code; names the missing scope when Slack tells it. */
export function platformDetail(code: string, needed: string | null): string {
  const sentence = PLATFORM_DETAILS[code] ?? `Slack refused the request (${code}).`;
  if (code === 'missing_scope' && needed !== null && /^[\w.:,]+$/.test(needed)) {
    return `${sentence.slice(0, -1)} (${needed}).`;
  }
  return sentence;
}
