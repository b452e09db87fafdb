import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import { ApiError, type ErrorCode, refusalAsValidationFailed } from '../errors.js';
import { type Failure, Refused } from '../shared/failures.js';
import { DeadlinePassedError } from '../shared/request-deadline.js';
import { lingerBeforeClose } from './lingering-close.js';
import { describeValidationError } from './validation.js';

/** Fastify's own error codes, mapped onto the catalogue. */
const fastifyCodes: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'validation_failed',
  FST_ERR_BAD_URL: 'validation_failed',
  FST_ERR_MAX_PARAM_LENGTH: 'validation_failed',
  FST_ERR_ASYNC_CONSTRAINT: 'validation_failed',
};

/** How long a client should wait before retrying a request the database could not serve. */
const databaseRetryAfterSeconds = 2;

/** 503 database_unavailable, with Retry-After. */
export const databaseUnavailable = (): ApiError =>
  new ApiError('database_unavailable', undefined, { headers: { 'retry-after': String(databaseRetryAfterSeconds) } });

/** 503 request_timeout, with Retry-After. */
export const deadlinePassed = (): ApiError => new ApiError('request_timeout', undefined, { headers: { 'retry-after': '1' } });

/**
 * Turns anything thrown into the ApiError that describes it to the client. `refusalPath` is the
 * route's name of a refused command input's path in its body (the route's `config.refusalPath`).
 */
export function toApiError(error: FastifyError | Error, refusalPath?: (path: Failure['path']) => Failure['path']): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof Refused) return refusalAsValidationFailed(error, refusalPath);
  // An outage, a failover, a silent connection or a full disk: the client may retry, it is not a bug.
  if (isDatabaseUnavailable(error)) return databaseUnavailable();
  if (error instanceof DeadlinePassedError) return deadlinePassed();
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) {
    return new ApiError('validation_failed', describeValidationError(fastifyError.validation, fastifyError.validationContext));
  }
  const mapped = fastifyError.code ? fastifyCodes[fastifyError.code] : undefined;
  if (mapped === 'invalid_json') return new ApiError('invalid_json', 'The request body is not valid JSON.');
  if (mapped === 'unsupported_media_type') return new ApiError('unsupported_media_type', 'Unsupported Content-Type for this request.');
  if (mapped) return new ApiError(mapped);
  // JSON.parse failures (and secure-json-parse's prototype poisoning refusal) surface as SyntaxError with 400.
  if (error instanceof SyntaxError && fastifyError.statusCode === 400)
    return new ApiError('invalid_json', 'The request body is not valid JSON.');
  if (fastifyError.statusCode === 413) return new ApiError('payload_too_large');
  if (fastifyError.statusCode === 415) return new ApiError('unsupported_media_type');
  if (fastifyError.statusCode === 400) return new ApiError('validation_failed', 'The request is malformed.');
  return new ApiError('internal_error');
}

/** Sends an ApiError in the envelope with its status and headers; `prose` rewrites its message and hint. */
export function sendApiError(reply: FastifyReply, apiError: ApiError, prose?: (text: string) => string): FastifyReply {
  const body = apiError.toBody();
  if (prose) body.error = { ...body.error, message: prose(body.error.message), hint: prose(body.error.hint) };
  return reply.code(apiError.status).headers(apiError.headers).type('application/json; charset=utf-8').send(body);
}

export interface ErrorHandlerOptions {
  /**
   * Rewrites the prose of errors raised by the code (WIRE_NAMES=slack names fields the hosted
   * product's way); validation messages are left alone, they name fields as the request's schema does.
   */
  codeErrorProse?: (text: string) => string;
}

/** An outage fails every request: one warning per interval (with how many it stands for), not one per request. */
const outageLog = {
  everyMs: 5000,
  lastAt: Number.NEGATIVE_INFINITY,
  unlogged: 0,
  note(request: FastifyRequest, error: Error): void {
    const now = Date.now();
    if (now - this.lastAt < this.everyMs) {
      this.unlogged++;
      return;
    }
    request.log.warn({ err: error, failed_since_last: this.unlogged }, 'database unavailable: answering 503');
    this.lastAt = now;
    this.unlogged = 0;
  },
};

/** The single place where errors become responses. Internals are logged, never sent. */
export function registerErrorHandler(app: FastifyInstance, options: ErrorHandlerOptions = {}): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const apiError = toApiError(error, request.routeOptions.config.refusalPath);
    if (apiError.code === 'database_unavailable') outageLog.note(request, error);
    // A 503 made on purpose (a stopping server, a deadline) is an answer, not a fault.
    else if (apiError.status >= 500 && !(error instanceof ApiError)) request.log.error({ err: error }, 'request failed');
    else request.log.info({ code: apiError.code }, apiError.message);
    // Fastify closes the connection when it refused a body it did not read (the client may still be sending).
    if (reply.getHeader('connection') === 'close') lingerBeforeClose(request.raw.socket);
    return sendApiError(reply, apiError, error.validation ? undefined : options.codeErrorProse);
  });
}
