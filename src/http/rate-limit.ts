import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Config } from '../config.js';
import { ApiError } from '../errors.js';
import type { Clock } from '../shared/clock.js';
import { andThen } from '../shared/maybe-async.js';
import { type DurationSeconds, durationSeconds, type EpochMillis, millisOfSeconds } from '../shared/time.js';
import { MemoryRateLimitStore } from './rate-limit-stores/memory-store.js';
import { type RateLimitStore, type WindowCount, windowOf } from './rate-limit-stores/rate-limit-store.js';
import { RedisRateLimitStore } from './rate-limit-stores/redis-store.js';
import type { GuardStep } from './request-guard.js';

/** One budget: `limit` requests per fixed window of `windowSeconds`, counted per bucket id. */
export interface RateLimitPolicy {
  name: 'key' | 'address' | 'download' | 'sign_in' | 'calendar' | 'calendar-address' | 'cost';
  limit: number;
  windowSeconds: DurationSeconds;
}

/** The outcome of counting one request, with what the RateLimit-* headers report. */
export interface RateLimitDecision {
  allowed: boolean;
  /** The budget's name, as the RateLimit and RateLimit-Policy fields give it. */
  policy: RateLimitPolicy['name'];
  limit: number;
  remaining: number;
  /** Whole seconds until the window resets (at least 1, so a client never retries at once). */
  resetSeconds: DurationSeconds;
  windowSeconds: DurationSeconds;
}

/** Counts requests against the per-key and per-address budgets in the configured store. */
export class RateLimiter {
  readonly perKey: RateLimitPolicy;
  readonly perAddress: RateLimitPolicy;
  /** Public file downloads, per address: a page with twenty images is not a key-guessing attack. */
  readonly perDownloadAddress: RateLimitPolicy;
  /** Console sign-ins, per address: each presents a token that may be a guess (docs/console.md). */
  readonly perSignInAddress: RateLimitPolicy;
  /** Calendar feeds (no key: the token in the URL): per token, and per address across tokens. */
  readonly perCalendarToken: RateLimitPolicy;
  readonly perCalendarAddress: RateLimitPolicy;

  constructor(
    readonly store: RateLimitStore,
    private readonly clock: Clock,
    settings: Config['rateLimit'],
  ) {
    this.perKey = { name: 'key', limit: settings.perSecond, windowSeconds: settings.windowSeconds };
    this.perAddress = { name: 'address', limit: settings.unauthenticatedPerSecond, windowSeconds: settings.windowSeconds };
    this.perDownloadAddress = { name: 'download', limit: settings.downloadsPerSecond, windowSeconds: settings.windowSeconds };
    this.perSignInAddress = { name: 'sign_in', limit: settings.signInPerMinute, windowSeconds: durationSeconds(60) };
    this.perCalendarToken = { name: 'calendar', limit: settings.calendarPerSecond, windowSeconds: settings.windowSeconds };
    this.perCalendarAddress = { name: 'calendar-address', limit: settings.calendarAddressPerSecond, windowSeconds: settings.windowSeconds };
  }

  /**
   * Counts one request of `id` (or `amount` units of the cost budget) against `policy` and says
   * whether it is within the budget: synchronously when the store counts in memory, a promise when
   * it asks Redis. Allowed when the budget was not spent before it (an operation that costs more
   * than what is left still runs once; what it overspends refuses the rest of the window).
   */
  consume(policy: RateLimitPolicy, id: string, amount = 1): RateLimitDecision | Promise<RateLimitDecision> {
    const bucket = `${policy.name}:${id}`;
    const windowMs = millisOfSeconds(policy.windowSeconds);
    const now = this.clock.now();
    const count = this.store.incrementNow
      ? this.store.incrementNow(bucket, windowMs, now, amount)
      : this.store.increment(bucket, windowMs, now, amount);
    return andThen(count, (settled) => decide(policy, settled, amount));
  }

  /**
   * Adds `amount` units to `id`'s count in the current window, not waiting for the store. A
   * negative amount gives units back, only while the window of `chargedAt` lasts: given back in a
   * later window it would be credit there. A positive one is debt and counts in whatever window it
   * lands in.
   */
  adjust(policy: RateLimitPolicy, id: string, amount: number, chargedAt: EpochMillis): void {
    if (amount === 0) return;
    const bucket = `${policy.name}:${id}`;
    const windowMs = millisOfSeconds(policy.windowSeconds);
    const now = this.clock.now();
    if (amount < 0 && windowOf(now, windowMs).index !== windowOf(chargedAt, windowMs).index) return;
    if (this.store.incrementNow) this.store.incrementNow(bucket, windowMs, now, amount);
    else
      this.store.increment(bucket, windowMs, now, amount).catch(() => {
        // The store falls back to memory itself and logs the outage; an adjustment is never worth an error.
      });
  }
}

function decide(policy: RateLimitPolicy, { count, resetMs }: WindowCount, amount = 1): RateLimitDecision {
  return {
    allowed: count - amount < policy.limit,
    policy: policy.name,
    limit: policy.limit,
    remaining: Math.max(0, policy.limit - count),
    resetSeconds: durationSeconds(Math.max(1, Math.ceil(resetMs / 1000))),
    windowSeconds: policy.windowSeconds,
  };
}

/**
 * Sets the rate-limit fields on the reply, in two generations (docs/idempotency-and-rate-limits.md):
 * `RateLimit` and `RateLimit-Policy` as structured fields of draft-ietf-httpapi-ratelimit-headers-11
 * (a named policy with its quota `q` and window `w`; the remaining quota `r` and seconds to reset
 * `t`), and `RateLimit-Limit`, `-Remaining` and `-Reset` of the earlier drafts, which the spec
 * names and deployed clients read.
 */
export function applyRateLimitHeaders(reply: FastifyReply, decision: RateLimitDecision): void {
  reply.header('ratelimit-limit', String(decision.limit));
  reply.header('ratelimit-remaining', String(decision.remaining));
  reply.header('ratelimit-reset', String(decision.resetSeconds));
  reply.header('ratelimit-policy', `"${decision.policy}";q=${decision.limit};w=${decision.windowSeconds}`);
  reply.header('ratelimit', `"${decision.policy}";r=${decision.remaining};t=${decision.resetSeconds}`);
}

/** The 429 for an exhausted budget, with Retry-After in whole seconds. */
export function rateLimitedError(decision: RateLimitDecision, message: string): ApiError {
  return new ApiError('rate_limited', message, {
    hint: `Retry after ${decision.resetSeconds} second${decision.resetSeconds === 1 ? '' : 's'} (Retry-After); the budget is ${decision.limit} ${decision.policy === 'cost' ? 'cost units' : 'requests'} per ${decision.windowSeconds} s.`,
    headers: { 'retry-after': String(decision.resetSeconds) },
  });
}

/**
 * Builds the limiter over Redis when REDIS_URL is set (one budget for every instance), else over
 * this process's memory; the store connects when the app is ready and disconnects when it closes.
 */
export function createRateLimiter(app: FastifyInstance, config: Config, clock: Clock): RateLimiter {
  const store: RateLimitStore = config.redisUrl
    ? new RedisRateLimitStore({ url: config.redisUrl, keyPrefix: config.redisKeyPrefix, log: app.log })
    : new MemoryRateLimitStore();
  app.addHook('onReady', async () => store.start());
  app.addHook('onClose', async () => store.close());
  return new RateLimiter(store, clock, config.rateLimit);
}

/** Sets the headers of a decision and refuses with 429 when it is over the budget. */
export function enforce(reply: FastifyReply, decision: RateLimitDecision, refusal: string): void {
  applyRateLimitHeaders(reply, decision);
  if (!decision.allowed) throw rateLimitedError(decision, refusal);
}

/**
 * Counts every authenticated request against its key's budget, across all endpoints; runs right
 * after auth (so 403s and validation errors are counted too) and before idempotency (so a 429
 * claims and stores nothing).
 */
export function keyBudgetStep(limiter: RateLimiter): GuardStep {
  const refusal = `Too many requests for this API key: at most ${limiter.perKey.limit} per ${limiter.perKey.windowSeconds} s.`;
  return (request, reply) => {
    const principal = request.principal;
    if (!principal) return;
    return andThen(limiter.consume(limiter.perKey, principal.keyId), (decision) => enforce(reply, decision, refusal));
  };
}
