import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import type { Metrics } from '../metrics/metrics.js';
import type { ClaimIdentity, ClaimOutcome, StoredResponse } from '../shared/idempotency-claims.js';
import { type DurationMs, durationMs } from '../shared/time.js';

const mutatingMethods = new Set(['POST', 'PATCH', 'DELETE']);
const uuid = '[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}';
/** A UUID v4 in any letter case, bare or in the quoted form of the IETF Idempotency-Key draft. */
const keyPattern = new RegExp(`^(?:"(${uuid})"|(${uuid}))$`, 'i');
/**
 * Response headers that are part of the answer and replayed. Everything else is per response
 * (X-Request-Id, RateLimit-*, cache and sniffing headers are set afresh on the replay).
 */
const storedHeaders = ['content-type', 'content-language', 'content-location', 'location', 'etag', 'last-modified', 'link'];

/** How long a 5xx answer waits for its key's release before it goes out anyway. */
const releaseWaitMs = durationMs(500);
/** A release that fails (the database is down) is tried again this often, this many times, so a retrying client is not refused (409) until the claim's lease ends. */
const releaseRetryMs = 1000;
const releaseAttempts = 5;

/** Releases the claim, trying again a few times while the database cannot; a last failure is logged. */
async function releaseEventually(service: IdempotencyStore, claim: ClaimIdentity, request: FastifyRequest, attempt = 1): Promise<void> {
  try {
    await service.release(claim);
  } catch (error) {
    if (attempt >= releaseAttempts) {
      request.log.warn({ err: error }, 'could not release an idempotency key');
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, releaseRetryMs).unref());
    await releaseEventually(service, claim, request, attempt + 1);
  }
}

/** Waits for `work` at most `ms` (it goes on after). */
async function settledWithin(work: Promise<void>, ms: DurationMs): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([work, late]);
  clearTimeout(timer);
}

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
 * corrected under the same key), or by the route itself once it has read a body it streams
 * (`config.idempotencyInHandler`, `request.claimIdempotencyKey`: uploads, docs/files.md); the
 * response is stored in onSend, before it leaves, so a retry right after it already replays.
 */
export function registerIdempotency(app: FastifyInstance, service: IdempotencyStore, metrics: Pick<Metrics, 'idempotency'>): void {
  // Each request's key state, a property of the request, not a WeakMap entry keyed by it (an
  // ephemeron per request makes every scavenge dearer: docs/performance.md, "Cost: per-request
  // WeakMap entries and timers").
  const stateOf = Symbol('idempotencyKeyState');
  type Carrying = { [stateOf]?: KeyState };
  const states = {
    set: (request: FastifyRequest, state: KeyState) => {
      (request as Carrying)[stateOf] = state;
    },
    get: (request: FastifyRequest): KeyState | undefined => (request as Carrying)[stateOf],
    has: (request: FastifyRequest): boolean => (request as Carrying)[stateOf] !== undefined,
  };
  app.decorateRequest('claimIdempotencyKey', null);

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

  /** Claims the request's key for `body`; true when a stored answer was replayed. */
  const claimFor = async (request: FastifyRequest, reply: FastifyReply, body: unknown): Promise<boolean> => {
    const state = states.get(request);
    if (!state || !request.principal) return false;
    const fingerprint = requestFingerprint(request.method, request.url, body);
    const outcome = await service.claim(request.principal.communityId, state.key, fingerprint);
    switch (outcome.kind) {
      case 'claimed':
        state.claim = outcome.claim;
        return false;
      case 'replay': {
        metrics.idempotency('replayed');
        const { statusCode, headers, body: stored } = outcome.response;
        reply.code(statusCode).headers(headers).header('x-idempotent-replayed', 'true');
        if (stored === null) reply.send();
        else reply.send(stored);
        return true;
      }
      case 'in_flight':
        metrics.idempotency('in_flight');
        throw new ApiError('idempotency_key_in_use', undefined, { headers: { 'retry-after': String(outcome.retryAfterSeconds) } });
      case 'reused':
        metrics.idempotency('mismatch');
        throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was used with a different method, path or body.');
    }
  };

  const claim = async (request: FastifyRequest, reply: FastifyReply) => {
    if (await claimFor(request, reply, request.body)) return reply;
  };

  // A route that reads its body itself (a streamed upload) claims once it knows what it received.
  const offerClaim = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void => {
    if (states.has(request)) request.claimIdempotencyKey = (body) => claimFor(request, reply, body);
    done();
  };

  const store = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const state = states.get(request);
    if (!state?.claim || state.settled) return payload;
    state.settled = true;
    const body = payloadText(payload);
    try {
      // 5xx: the operation may not have happened; the client must be able to retry it. The answer
      // waits for the release only briefly: a 503 of a database that does not answer must not wait
      // for it (the release goes on, and failing that the claim's lease frees the key).
      if (reply.statusCode >= 500 || body === undefined)
        await settledWithin(releaseEventually(service, state.claim, request), releaseWaitMs);
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
      void releaseEventually(service, state.claim, request);
    }
    service.purgeIfDue()?.catch((error: unknown) => app.log.warn({ err: error }, 'purging expired idempotency keys failed'));
    done();
  };

  app.addHook('onRoute', (route) => {
    if (route.config?.public || ![route.method].flat().some((method) => mutatingMethods.has(method))) return;
    if (route.config?.answersSecret) return;
    route.onRequest = withHook(route.onRequest, checkHeader);
    if (route.config?.idempotencyInHandler) route.preHandler = withHook(route.preHandler, offerClaim);
    else route.preHandler = withHook(route.preHandler, claim);
    route.onSend = withHook(route.onSend, store);
    route.onResponse = withHook(route.onResponse, settle);
  });
}
