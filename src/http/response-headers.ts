import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GuardStep } from './request-guard.js';

/** Sets the headers every response carries (also used where Fastify answers before any hook runs). */
export function applyResponseHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  reply.header('x-content-type-options', 'nosniff');
  if (!request.url.startsWith('/docs')) reply.header('cache-control', 'no-store');
}

/** Headers every response carries: the request id, and what an API needs against sniffing and caching. */
export const responseHeadersStep: GuardStep = applyResponseHeaders;

const sanePattern = /^[A-Za-z0-9._:-]{1,128}$/;

/** The client's X-Request-Id when it is sane, else a fresh one. */
export function requestIdFrom(header: string | string[] | undefined, fresh: () => string): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value && sanePattern.test(value) ? value : fresh();
}
