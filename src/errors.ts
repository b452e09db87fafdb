import { type Failure, formatPath, Refused } from './shared/failures.js';

/**
 * The one catalogue of error codes. Each code has exactly one HTTP status, so a body can never
 * disagree with its status line; factories below are the only way errors are made.
 */
const errorCatalogue = {
  unauthorized: {
    status: 401,
    message: 'Missing or invalid API key.',
    hint: 'Send the header "Authorization: Bearer <API_KEY>" with an active key.',
  },
  api_key_expired: {
    status: 401,
    message: 'This API key has expired.',
    hint: 'Create a new key (community-admin key create) and use it instead.',
  },
  console_link_refused: {
    status: 401,
    message: 'This console link was already used, has expired or is unknown.',
    hint: 'Make a new link: community-admin console link --community <id> (each link works once).',
  },
  insufficient_scope: {
    status: 403,
    message: 'This API key does not hold the permission this endpoint needs.',
    hint: 'Use a key that holds the permission (community-admin key create --permissions ...).',
  },
  plan_required: { status: 403, message: 'This endpoint is not available on your plan.', hint: 'Upgrade the community plan.' },
  not_found: { status: 404, message: 'Not found.', hint: 'Check the identifier.' },
  route_not_found: { status: 404, message: 'No such route.', hint: 'See /admin/v0/openapi.json for the available operations.' },
  method_not_allowed: { status: 405, message: 'Method not allowed for this path.', hint: 'See the Allow header.' },
  validation_failed: { status: 400, message: 'The request is invalid.', hint: 'Correct the named field and retry.' },
  invalid_json: { status: 400, message: 'The request body is not valid JSON.', hint: 'Send a well-formed JSON document.' },
  idempotency_key_invalid: {
    status: 400,
    message: 'The Idempotency-Key header must be a UUID version 4.',
    hint: 'Generate a fresh UUIDv4 per distinct operation.',
  },
  chat_admin_not_configured: {
    status: 400,
    message: 'This community has no chat admin connection.',
    hint: 'Connect the chat workspace (community-admin chat connect) or omit invite_to_chat.',
  },
  member_has_chat_profile: {
    status: 409,
    message: 'This member is linked to a chat profile and cannot be deactivated here.',
    hint: 'Deactivate the user in the chat workspace instead.',
  },
  webhook_endpoint_disabled: {
    status: 409,
    message: 'This webhook endpoint is disabled.',
    hint: 'Enable the endpoint again (PATCH /webhook_endpoints/{id} with {"enabled": true}) once its receiver works.',
  },
  // ---- console-ops-api (issue 39): the Slack page's sync jobs ----
  chat_bot_not_connected: {
    status: 400,
    message: 'This community has no chat bot connection.',
    hint: 'Connect the Slack bot first: community-admin chat connect --community ID --bot-token xoxb-... --signing-secret ...',
  },
  chat_sync_job_running: {
    status: 409,
    message: 'A backfill of this community is already queued or running.',
    hint: 'Watch it with GET /admin/v0/chat/sync_jobs/{id}; start another once it has ended.',
  },
  // ---- end console-ops-api ----
  calendar_feed_unreadable: {
    status: 409,
    message: "This member's calendar feed URL was sealed with a secrets key this server no longer holds, so it cannot be answered again.",
    hint: 'Revoke the feed (DELETE /admin/v0/calendar_feeds/{id}) and ask again for a new URL, or add the old key to SECRETS_KEY_PREVIOUS.',
  },
  idempotency_key_in_use: {
    status: 409,
    message: 'A request with this Idempotency-Key is still being processed.',
    hint: 'Retry after the number of seconds in Retry-After.',
  },
  request_timeout_client: { status: 408, message: 'The request was not received in time.', hint: 'Send the whole request promptly.' },
  payload_too_large: { status: 413, message: 'The request body is too large.', hint: 'Send at most 1 MiB.' },
  range_not_satisfiable: {
    status: 416,
    message: 'The requested range is not within the file.',
    hint: "Ask for a range inside Content-Range's total, or omit the Range header.",
  },
  unsupported_media_type: { status: 415, message: 'Unsupported Content-Type.', hint: 'Send Content-Type: application/json.' },
  idempotency_key_reused: {
    status: 422,
    message: 'This Idempotency-Key was used for a different request.',
    hint: 'Use a new key for a different operation.',
  },
  headers_too_large: { status: 431, message: 'The request headers are too large.', hint: 'Send at most 16 KiB of headers.' },
  rate_limited: { status: 429, message: 'Too many requests.', hint: 'Retry after the number of seconds in Retry-After.' },
  internal_error: {
    status: 500,
    message: 'An unexpected error occurred.',
    hint: 'Retry later; if it persists, contact the operator with the X-Request-Id.',
  },
  service_unavailable: { status: 503, message: 'The service is not ready.', hint: 'Retry later.' },
  request_timeout: {
    status: 503,
    message: 'The request ran past its deadline and was not carried out.',
    hint: 'Retry after the number of seconds in Retry-After (with the same Idempotency-Key for a write).',
  },
  database_unavailable: {
    status: 503,
    message: 'The database is unavailable.',
    hint: 'Retry after the number of seconds in Retry-After (with the same Idempotency-Key for a write).',
  },
} as const satisfies Record<string, { status: number; message: string; hint: string }>;

export type ErrorCode = keyof typeof errorCatalogue;

export interface ErrorBody {
  success: false;
  error: { code: string; message: string; hint: string };
}

/** An error that the HTTP layer renders in the envelope with its catalogue status. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly hint: string;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message?: string, options: { hint?: string; headers?: Record<string, string> } = {}) {
    const entry = errorCatalogue[code];
    // An ApiError is an answer, not a fault: its stack is never read, and capturing one costs more
    // than the rest of a refused request (a 401 at full load spent 12% of its time here). 5xx
    // faults are other errors and keep their stacks for the logs.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = entry.status >= 500 ? stackTraceLimit : 0;
    super(message ?? entry.message);
    Error.stackTraceLimit = stackTraceLimit;
    this.name = 'ApiError';
    this.code = code;
    this.status = entry.status;
    this.hint = options.hint ?? entry.hint;
    this.headers = options.headers ?? {};
  }

  /** The envelope body for this error. */
  toBody(): ErrorBody {
    return { success: false, error: { code: this.code, message: this.message, hint: this.hint } };
  }
}

/** 404 for a resource that does not exist in the caller's community (`message`: the operator commands' own sentence). */
export const notFound = (what: string, message = `${what} not found.`): ApiError => new ApiError('not_found', message);

/** 400 naming the field and the rule it breaks. */
export const validationFailed = (field: string, rule: string): ApiError => new ApiError('validation_failed', `${field}: ${rule}`);

/** Where a refused input's path is in a request when the route does not say: in its body. */
const inBody = (path: Failure['path']): Failure['path'] => ['body', ...path];

/**
 * A refusal as the API's 400: `validation_failed` naming the request's `<part>.<path>` of its first
 * failure (`requestPath`: the route's place of a path of the refused input, `body.<path>` unless
 * it says otherwise). The error handler is its one caller: routes let a `Refused` through
 * (src/http/error-handler.ts).
 */
export function refusalAsValidationFailed(refused: Refused, requestPath: (path: Failure['path']) => Failure['path'] = inBody): ApiError {
  const [failure] = refused.failures;
  if (failure === undefined) return new ApiError('validation_failed');
  return validationFailed(formatPath(requestPath(failure.path)), failure.message);
}

/**
 * A refusal of an operator's input as one whole sentence that names its place itself (`--limit
 * must be ...`): a Refused like any other, which the CLI prints as the sentence.
 */
export class UserInputError extends Refused {
  constructor(message: string, rule = 'operator_input') {
    super([{ path: [], rule, message, sentence: true }]);
    this.name = 'UserInputError';
  }
}
