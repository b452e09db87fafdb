import { createHash } from 'node:crypto';
import { isIPv6 } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../shared/clock.js';
import { andThen } from '../shared/maybe-async.js';
import type { PrincipalLookup } from '../shared/principal.js';
import { applyRateLimitHeaders, enforce, type RateLimiter } from './rate-limit.js';
import type { GuardStep } from './request-guard.js';

/** How long a secret that authenticated here skips the per-address budget (auth itself still runs every time). */
const knownKeyTtlMs = 10 * 60_000;
const maxKnownKeys = 10_000;
const refusal = 'Too many requests without a valid API key from this address.';

/** The budget id of a client address: IPv4 as is, IPv6 by its /64 (one host usually holds a whole /64). */
export function addressBucket(ip: string): string {
  // IPv4 (the usual case) has no colon: skip the IPv6 parsing below.
  if (!ip.includes(':')) return ip;
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

/** What the address budget knows of one request's presented key, between the checks before and after auth. */
export interface PresentedKey {
  /** SHA-256 of the secret (the secret itself is not kept). */
  hash: string;
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
export class AddressBudget {
  private readonly knownKeys = new Map<string, number>();
  private readonly lookups = new Map<string, Promise<boolean>>();

  constructor(
    private readonly limiter: RateLimiter,
    private readonly authenticator: Pick<PrincipalLookup, 'authenticateHash'>,
    private readonly clock: Clock,
  ) {}

  /** Counts the request's address; 429 past the budget. */
  count(request: FastifyRequest, reply: FastifyReply): void | Promise<void> {
    return andThen(this.limiter.consume(this.limiter.perAddress, addressBucket(request.ip)), (decision) =>
      enforce(reply, decision, refusal),
    );
  }

  /** The check before auth, for a request that presents a plausible key. */
  beforeAuth(request: FastifyRequest, reply: FastifyReply, key: PresentedKey): void | Promise<void> {
    if ((this.knownKeys.get(key.hash) ?? 0) > this.clock.now()) return;
    // Requests waiting for another's lookup resume after it, in arrival order: every continuation
    // below is one promise step, and the first request's was attached first.
    const pending = this.lookups.get(key.hash);
    if (pending) {
      const uncounted = () => {
        key.counted = true;
        return this.count(request, reply);
      };
      return pending.then((valid) => (valid ? undefined : uncounted()), uncounted);
    }
    key.counted = true;
    const lookup = (async () => {
      try {
        await this.count(request, reply);
        const valid = typeof (await this.authenticator.authenticateHash(key.hash)) !== 'string';
        if (valid) this.remember(key.hash);
        return valid;
      } finally {
        this.lookups.delete(key.hash);
      }
    })();
    this.lookups.set(key.hash, lookup);
    return lookup.then(() => undefined);
  }

  /** A key that authenticated skips this budget for a while. */
  accepted(key: PresentedKey): void {
    this.remember(key.hash);
  }

  /**
   * A key refused by auth: when it skipped the budget (it was valid a moment ago and is now
   * revoked) it is forgotten and its address counted, with the headers of that count on the 401.
   */
  refused(request: FastifyRequest, reply: FastifyReply, key: PresentedKey): void | Promise<void> {
    if (key.counted) return;
    this.knownKeys.delete(key.hash);
    key.counted = true;
    return andThen(this.limiter.consume(this.limiter.perAddress, addressBucket(request.ip)), (decision) =>
      applyRateLimitHeaders(reply, decision),
    );
  }

  private remember(hash: string): void {
    if (this.knownKeys.size >= maxKnownKeys && !this.knownKeys.has(hash)) this.knownKeys.clear();
    this.knownKeys.set(hash, this.clock.now() + knownKeyTtlMs);
  }
}

/** Counts a public download against its address's download budget (its own, not the unauthenticated requests' one). */
export function downloadBudgetStep(limiter: RateLimiter): GuardStep {
  const policy = limiter.perDownloadAddress;
  const refusal = `Too many downloads from this address: at most ${policy.limit} per ${policy.windowSeconds} s.`;
  return (request, reply) => andThen(limiter.consume(policy, addressBucket(request.ip)), (decision) => enforce(reply, decision, refusal));
}

/** Counts a console sign-in against its address's sign-in budget (per minute: each one is a guess at a token). */
export function signInBudgetStep(limiter: RateLimiter): GuardStep {
  const policy = limiter.perSignInAddress;
  const refusal = `Too many console sign-ins from this address: at most ${policy.limit} per ${policy.windowSeconds} s.`;
  return (request, reply) => andThen(limiter.consume(policy, addressBucket(request.ip)), (decision) => enforce(reply, decision, refusal));
}

/**
 * Counts a calendar feed request (`config.calendarBudget`) against its address's calendar budget,
 * then its token's: calendar apps poll rarely, so a feed asked for more often than
 * RATE_LIMIT_CALENDAR_PER_SECOND is a misbehaving client, and an address trying many tokens is
 * held by the address budget before any lookup. The token is counted by a hash of it, so the
 * store (Redis) never holds a feed's secret.
 */
export function calendarBudgetStep(limiter: RateLimiter): GuardStep {
  const byAddress = limiter.perCalendarAddress;
  const byToken = limiter.perCalendarToken;
  const addressRefusal = `Too many calendar requests from this address: at most ${byAddress.limit} per ${byAddress.windowSeconds} s.`;
  const tokenRefusal = `Too many requests for this calendar feed: at most ${byToken.limit} per ${byToken.windowSeconds} s.`;
  return (request, reply) => {
    const token = (request.params as { token?: string } | undefined)?.token ?? '';
    const bucket = createHash('sha256').update(token).digest('base64url').slice(0, 22);
    return andThen(limiter.consume(byAddress, addressBucket(request.ip)), (decision) => {
      enforce(reply, decision, addressRefusal);
      return andThen(limiter.consume(byToken, bucket), (tokenDecision) => enforce(reply, tokenDecision, tokenRefusal));
    });
  };
}
