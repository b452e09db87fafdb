import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import type { ClaimIdentity, ClaimOutcome, StoredResponse } from '../idempotency/idempotency.service.js';
import type { Metrics } from '../metrics/metrics.js';

const mutatingMethods = new Set(['POST', 'PATCH', 'DELETE']);
const uuid = '[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}';
/** A UUID v4 in any letter case, bare or in the quoted form of the IETF Idempotency-Key draft. */
const keyPattern = new RegExp(`^(?:"(${uuid})"|(${uuid}))$`, 'i');
/**
 * Response headers that are part of the answer and replayed. Everything else is per response
 * (X-Request-Id, RateLimit-*, cache and sniffing headers are set afresh on the replay).
 */
const storedHeaders = ['content-type', 'content-language', 'content-location', 'location', 'etag', 'last-modified', 'link'];

interface KeyState {
  key: string;
  claim?: ClaimIdentity;
  /** Set once the claim has been completed or released, so it is settled exactly once. */
  settled?: boolean;
}

/** The normalised key of an Idempotency-Key header value, or null when it is not a UUID v4. */
export function parseIdempotencyKey(value: string | string[]): string | null {
  if (Array.isArray(value)) return null;
  const match = keyPattern.exec(value.trim());
  const key = match?.[1] ?? match?.[2];
  return key ? key.toLowerCase() : null;
}

function canonical(value: unknown): unknown {
  if (Buffer.isBuffer(value)) return value.toString('base64');
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === 'object' && value !== null) {
    const sorted: Record<string, unknown> = {};
    for (const name of Object.keys(value).sort()) sorted[name] = canonical((value as Record<string, unknown>)[name]);
    return sorted;
  }
  return value ?? null;
}

/** SHA-256 of what makes two requests the same operation: method, path (with query) and canonical body. */
export function requestFingerprint(method: string, url: string, body: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify([method, url, canonical(body)]))
    .digest('hex');
}

function headersToStore(reply: FastifyReply): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of storedHeaders) {
    const value = reply.getHeader(name);
    if (typeof value === 'string' || typeof value === 'number') headers[name] = String(value);
  }
  return headers;
}

/** The payload as stored text, or undefined when it is not text (a stream): such a response is not stored. */
function payloadText(payload: unknown): string | null | undefined {
  if (payload === null || payload === undefined) return null;
  if (typeof payload === 'string') return payload;
  if (Buffer.isBuffer(payload)) return payload.toString('utf8');
  return undefined;
}

type Hook<T> = T | T[] | undefined;
const withHook = <T>(existing: Hook<T>, hook: T): T[] => [...(existing === undefined ? [] : [existing].flat()), hook] as T[];

/** Where claims of idempotency keys and their stored responses live (src/idempotency, wired in app.ts). */
export interface IdempotencyStore {
  claim(communityId: string, key: string, fingerprint: string): Promise<ClaimOutcome>;
  complete(claim: ClaimIdentity, response: StoredResponse): Promise<boolean>;
  release(claim: ClaimIdentity): Promise<void>;
  /** Purges expired keys now and then; null when it is not time yet. */
  purgeIfDue(): Promise<number> | null;
}

/**
 * Idempotency-Key on POST, PATCH and DELETE, scoped to the caller's community. Its hooks are
 * attached to those routes only (reads carry none of them: a hook per request costs a promise).
 * They run after the request guard, so requests refused by auth, the rate limit or the plan guard
 * (401, 429, 403) store nothing. The header is checked in onRequest; the key is claimed in
 * preHandler, after parsing and validation (an invalid request stores nothing and can be
 * corrected under the same key); the response is stored in onSend, before it leaves, so a retry
 * right after it already replays.
 */
export function registerIdempotency(app: FastifyInstance, service: IdempotencyStore, metrics: Pick<Metrics, 'idempotency'>): void {
  const states = new WeakMap<FastifyRequest, KeyState>();

  const checkHeader = (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void => {
    const header = request.headers['idempotency-key'];
    if (header === undefined || !request.principal || !mutatingMethods.has(request.method)) {
      done();
      return;
    }
    const key = parseIdempotencyKey(header);
    if (!key) {
      done(
        new ApiError('idempotency_key_invalid', 'The Idempotency-Key header must be a UUID version 4.', {
          hint: 'Send a fresh UUIDv4 (e.g. crypto.randomUUID()) per distinct operation, or omit the header.',
        }),
      );
      return;
    }
    states.set(request, { key });
    done();
  };

  const claim = async (request: FastifyRequest, reply: FastifyReply) => {
    const state = states.get(request);
    if (!state || !request.principal) return;
    const fingerprint = requestFingerprint(request.method, request.url, request.body);
    const outcome = await service.claim(request.principal.communityId, state.key, fingerprint);
    switch (outcome.kind) {
      case 'claimed':
        state.claim = outcome.claim;
        return;
      case 'replay': {
        metrics.idempotency('replayed');
        const { statusCode, headers, body } = outcome.response;
        reply.code(statusCode).headers(headers).header('x-idempotent-replayed', 'true');
        return body === null ? reply.send() : reply.send(body);
      }
      case 'in_flight':
        metrics.idempotency('in_flight');
        throw new ApiError('idempotency_key_in_use', undefined, { headers: { 'retry-after': String(outcome.retryAfterSeconds) } });
      case 'reused':
        metrics.idempotency('mismatch');
        throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was used with a different method, path or body.');
    }
  };

  const store = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const state = states.get(request);
    if (!state?.claim || state.settled) return payload;
    state.settled = true;
    const body = payloadText(payload);
    try {
      // 5xx: the operation may not have happened; the client must be able to retry it.
      if (reply.statusCode >= 500 || body === undefined) await service.release(state.claim);
      else await service.complete(state.claim, { statusCode: reply.statusCode, headers: headersToStore(reply), body });
    } catch (error) {
      // The response still goes out; the claim stays in flight until its lease ends.
      request.log.error({ err: error }, 'could not store the idempotent response');
    }
    return payload;
  };

  const settle = (request: FastifyRequest, _reply: FastifyReply, done: () => void): void => {
    const state = states.get(request);
    if (state?.claim && !state.settled) {
      // No onSend ran (the connection went away): give the key back rather than wait for the lease.
      state.settled = true;
      service.release(state.claim).catch((error: unknown) => request.log.warn({ err: error }, 'could not release an idempotency key'));
    }
    service.purgeIfDue()?.catch((error: unknown) => app.log.warn({ err: error }, 'purging expired idempotency keys failed'));
    done();
  };

  app.addHook('onRoute', (route) => {
    if (route.config?.public || ![route.method].flat().some((method) => mutatingMethods.has(method))) return;
    route.onRequest = withHook(route.onRequest, checkHeader);
    route.preHandler = withHook(route.preHandler, claim);
    route.onSend = withHook(route.onSend, store);
    route.onResponse = withHook(route.onResponse, settle);
  });
}
