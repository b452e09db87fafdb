import { randomUUID } from 'node:crypto';
import { type ServerOptions, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import type { Config } from '../config.js';
import { ApiError } from '../errors.js';
import { errorResponses } from '../schemas/common.schemas.js';
import { sendApiError, toApiError } from './error-handler.js';
import { applyResponseHeaders } from './response-headers.js';

/** Largest request head (request line and headers) Node accepts; past it the answer is a 431. */
const maxHeaderBytes = 16 * 1024;

/**
 * Errors Fastify meets before routing (a URL that is not valid percent-encoding, a path parameter
 * over maxParamLength): no hook has run, so the standard headers are set here, and the answer is
 * the envelope instead of Fastify's own error shape.
 */
function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  applyResponseHeaders(request, reply);
  request.log.info({ code: error.code }, 'malformed request');
  sendApiError(reply, toApiError(error));
}

/**
 * Errors of the HTTP parser, before there is a request (headers over the limit, a request not
 * received within REQUEST_TIMEOUT_MS, bytes that are not HTTP): answered in the envelope on the
 * raw socket, which is then closed.
 */
function clientErrorHandler(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const apiError =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? new ApiError('headers_too_large')
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new ApiError('request_timeout_client')
        : new ApiError('validation_failed', 'The request is not valid HTTP/1.1.');
  this.log.info({ code: error.code }, apiError.message);
  if (socket.writable) {
    const body = JSON.stringify(apiError.toBody());
    socket.write(
      [
        `HTTP/1.1 ${apiError.status} ${STATUS_CODES[apiError.status] ?? 'Error'}`,
        'Content-Type: application/json; charset=utf-8',
        `Content-Length: ${Buffer.byteLength(body)}`,
        'X-Content-Type-Options: nosniff',
        'Cache-Control: no-store',
        `X-Request-Id: ${randomUUID()}`,
        'Connection: close',
        '',
        body,
      ].join('\r\n'),
    );
  }
  socket.destroy();
}

/**
 * Fastify options that bound what a client can make the server hold: header size, the time to
 * receive a whole request (checked every second at most, not Node's default 30 s, so a slow
 * client is cut close to REQUEST_TIMEOUT_MS), and envelope answers for transport-level errors.
 */
export function transportOptions(
  config: Config,
): { http: ServerOptions } & Pick<FastifyServerOptions, 'frameworkErrors' | 'clientErrorHandler'> {
  return {
    http: {
      maxHeaderSize: maxHeaderBytes,
      requestTimeout: config.requestTimeoutMs,
      headersTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, Math.max(100, Math.floor(config.requestTimeoutMs / 4))),
    },
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
  };
}

const bodyMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Any route whose method can carry a body can answer 413 (over 1 MiB) and 415 (a Content-Type the
 * server cannot parse), even a route that takes no body: the document says so for every such route.
 */
export function registerBodyErrorDocs(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const response = route.schema?.response as Record<string, unknown> | undefined;
    if (!response || ![route.method].flat().some((method) => bodyMethods.has(method))) return;
    for (const status of [413, 415]) {
      if (!(status in response)) response[status] = errorResponses(status)[status];
    }
  });
}
