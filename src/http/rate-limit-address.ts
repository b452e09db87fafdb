import { isIPv6 } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hashApiKey } from '../modules/api-keys/api-keys.service.js';
import type { Authenticator } from '../modules/api-keys/authenticator.js';
import type { Clock } from '../shared/clock.js';
import { presentedKey } from './auth.js';
import { applyRateLimitHeaders, type RateLimiter, rateLimitedError } from './rate-limit.js';

/** How long a secret that authenticated here skips the per-address budget (auth itself still runs every time). */
const knownKeyTtlMs = 10 * 60_000;
const maxKnownKeys = 10_000;

/** The budget id of a client address: IPv4 as is, IPv6 by its /64 (one host usually holds a whole /64). */
export function addressBucket(ip: string): string {
  const address = ip.split('%')[0] ?? ip;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped?.[1]) return mapped[1];
  if (!isIPv6(address)) return address;
  const [head = '', tail = ''] = address.split('::', 2);
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const groups = address.includes('::')
    ? [...headGroups, ...Array<string>(Math.max(0, 8 - headGroups.length - tailGroups.length)).fill('0'), ...tailGroups]
    : headGroups;
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}

interface AddressState {
  secretHash: string;
  /** True once this request has cost its address one unit of the unauthenticated budget. */
  counted: boolean;
}

/**
 * Limits requests without a valid key per client address, before auth runs, so that keys cannot be
 * guessed at speed and failed guesses cost no database lookup past the budget. A secret seen for
 * the first time costs its address one request, atomically, before it is looked up; concurrent
 * requests with that same secret wait for that one lookup. Secrets that authenticated recently skip
 * this budget (their key's own budget applies after auth), so valid clients behind one address are
 * not throttled by it. A recently valid key that is now refused (revoked) is counted on its 401.
 */
export function registerAddressRateLimit(app: FastifyInstance, limiter: RateLimiter, authenticator: Authenticator, clock: Clock): void {
  const knownKeys = new Map<string, number>();
  const lookups = new Map<string, Promise<boolean>>();
  const states = new WeakMap<FastifyRequest, AddressState>();

  const countAddress = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const decision = await limiter.consume(limiter.perAddress, addressBucket(request.ip));
    applyRateLimitHeaders(reply, decision);
    if (!decision.allowed) {
      throw rateLimitedError(decision, 'Too many requests without a valid API key from this address.');
    }
  };
  const remember = (hash: string): void => {
    if (knownKeys.size >= maxKnownKeys && !knownKeys.has(hash)) knownKeys.clear();
    knownKeys.set(hash, clock.now() + knownKeyTtlMs);
  };

  app.addHook('onRequest', async (request, reply) => {
    // Health, docs and unknown routes never reach auth or the database: nothing to protect.
    if (!request.routeOptions.url || request.routeOptions.config.public) return;
    const secret = presentedKey(request.headers.authorization);
    if (!secret) return countAddress(request, reply);
    const state: AddressState = { secretHash: hashApiKey(secret), counted: false };
    states.set(request, state);
    if ((knownKeys.get(state.secretHash) ?? 0) > clock.now()) return;

    const pending = lookups.get(state.secretHash);
    if (pending) {
      if (await pending.catch(() => false)) return;
      state.counted = true;
      return countAddress(request, reply);
    }
    state.counted = true;
    const lookup = (async () => {
      await countAddress(request, reply);
      return (await authenticator.authenticate(secret)) !== null;
    })();
    lookups.set(state.secretHash, lookup);
    try {
      if (await lookup) remember(state.secretHash);
    } finally {
      lookups.delete(state.secretHash);
    }
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const state = states.get(request);
    if (!state) return payload;
    if (request.principal) {
      remember(state.secretHash);
    } else if (reply.statusCode === 401 && !state.counted) {
      knownKeys.delete(state.secretHash);
      state.counted = true;
      applyRateLimitHeaders(reply, await limiter.consume(limiter.perAddress, addressBucket(request.ip)));
    }
    return payload;
  });
}
