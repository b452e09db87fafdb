import type { FastifyReply } from 'fastify';
import type { CostMeter } from '../routing/request-context.js';
import type { Clock } from '../shared/clock.js';
import { andThen } from '../shared/maybe-async.js';
import type { EpochMillis } from '../shared/time.js';
import { type RateLimitDecision, type RateLimiter, type RateLimitPolicy, rateLimitedError } from './rate-limit.js';
import type { GuardStep } from './request-guard.js';

/** Costs remembered per instance: enough for every query a busy community repeats, bounded whatever the queries. */
const maxRemembered = 10_000;

/**
 * The expected cost (units) from which costed work is heavy and takes turns (HeavyWorkTurns). A search
 * of 2,000 matches or more: a few ms of the event loop each on SQLite.
 */
const heavyUnits = 5;

/**
 * Heavy work takes turns, one at a time per instance, keys in rotation, and each turn starts on a
 * new turn of the event loop (setImmediate, after the poll phase). On SQLite a search runs on the
 * event loop: when a key's admitted searches arrive together (a window opens, 50 connections wake
 * from Retry-After), they would otherwise run back to back in one poll phase while every other
 * key's request read in the same phase waits behind all of them. Taking turns, another key's
 * request waits at most for one heavy search; and a search holding the turn is told it is heavy
 * (CostMeter.heavy), so that on SQLite its statement runs on the read thread, off the event loop,
 * one at a time there too. On PostgreSQL it bounds what one instance asks of the database for heavy
 * searches to one at a time.
 */
class HeavyWorkTurns {
  private busy = false;
  /** Waiting work per key; the map's order is the rotation (a key served goes to the end). */
  private readonly waiting = new Map<string, Waiter[]>();

  /**
   * Resolves when it is this work's turn. `gone` says whether the work still has someone to answer:
   * work whose request was answered meanwhile (503 past its deadline) or whose client closed the
   * connection is dropped from the queue when its turn comes, never resolved, so that no one waits
   * behind searches nobody will read (a client timing out its requests would otherwise leave a backlog
   * that every later request of its key waits behind: docs/performance.md, *Tail*).
   */
  enter(keyId: string, gone: () => boolean): Promise<void> {
    return new Promise((resolve) => {
      const queue = this.waiting.get(keyId);
      const waiter = { resolve, gone };
      if (queue) queue.push(waiter);
      else this.waiting.set(keyId, [waiter]);
      if (!this.busy) {
        this.busy = true;
        setImmediate(() => this.next());
      }
    });
  }

  leave(): void {
    setImmediate(() => this.next());
  }

  private next(): void {
    for (;;) {
      const first = this.waiting.entries().next();
      if (first.done) {
        this.busy = false;
        return;
      }
      const [keyId, queue] = first.value;
      const waiter = queue.shift() as Waiter;
      this.waiting.delete(keyId);
      if (queue.length > 0) this.waiting.set(keyId, queue);
      if (waiter.gone()) continue;
      waiter.resolve();
      return;
    }
  }
}

interface Waiter {
  resolve: () => void;
  gone: () => boolean;
}

/** A map that forgets its oldest entries past `max` (insertion order; a set moves an entry to the end). */
class Recent {
  private readonly entries = new Map<string, number>();
  constructor(private readonly max: number) {}
  get(key: string): number | undefined {
    return this.entries.get(key);
  }
  set(key: string, value: number): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as string);
  }
}

/**
 * The cost budget of API keys (policy `cost`): units per window, each costed request charged what
 * its work costs (a search: one unit plus one per so many matches), so that a key's share of the
 * server follows what its requests cost and not only their number. Counted in the request budget's
 * store (Redis when configured: one budget for every instance).
 *
 * Admission charges what the same operation cost last time on this instance (else what the key's
 * last costed request cost, else one unit) before the work, so concurrent requests cannot all pass
 * on a budget none of them has charged yet; the difference is settled once the work is done.
 */
export class CostBudget {
  readonly policy: RateLimitPolicy;
  private readonly costOfOperation = new Recent(maxRemembered);
  private readonly lastCostOfKey = new Recent(maxRemembered);
  readonly turns = new HeavyWorkTurns();

  constructor(
    private readonly limiter: RateLimiter,
    private readonly clock: Clock,
    settings: { costPerSecond: number; windowSeconds: number },
  ) {
    this.policy = { name: 'cost', limit: settings.costPerSecond, windowSeconds: settings.windowSeconds };
  }

  meter(keyId: string, reply: FastifyReply): CostMeter {
    return new KeyCostMeter(this, keyId, reply);
  }

  /** What an operation is expected to cost before it runs. */
  estimate(operation: string, keyId: string): number {
    return this.costOfOperation.get(operation) ?? this.lastCostOfKey.get(keyId) ?? 1;
  }

  charge(keyId: string, units: number): RateLimitDecision | Promise<RateLimitDecision> {
    return this.limiter.consume(this.policy, keyId, units);
  }

  settle(keyId: string, operation: string, charged: number, chargedAt: EpochMillis, recorded: number | null): void {
    if (recorded !== null) {
      this.costOfOperation.set(operation, recorded);
      this.lastCostOfKey.set(keyId, recorded);
    }
    this.limiter.adjust(this.policy, keyId, (recorded ?? 0) - charged, chargedAt);
  }

  now(): EpochMillis {
    return this.clock.now();
  }

  refusal(): string {
    return `This API key has spent its cost budget: ${this.policy.limit} units per ${this.policy.windowSeconds} s (a search costs one unit plus one per 500 matches).`;
  }
}

class KeyCostMeter implements CostMeter {
  private operation = '';
  private charged = 0;
  private chargedAt: EpochMillis | null = null;
  private recorded: number | null = null;
  private holdsTurn = false;

  get heavy(): boolean {
    return this.holdsTurn;
  }

  constructor(
    private readonly budget: CostBudget,
    private readonly keyId: string,
    private readonly reply: FastifyReply,
  ) {}

  admit(operation: string): void | Promise<void> {
    this.operation = operation;
    this.charged = this.budget.estimate(operation, this.keyId);
    this.chargedAt = this.budget.now();
    return andThen(this.budget.charge(this.keyId, this.charged), (decision) => {
      addCostHeaders(this.reply, decision);
      if (!decision.allowed) {
        // Refused work is not settled: what it was charged stays spent, like a refused request in the request budget.
        this.chargedAt = null;
        throw rateLimitedError(decision, this.budget.refusal());
      }
      if (this.charged < heavyUnits) return;
      return this.budget.turns.enter(this.keyId, () => this.answeredOrGone()).then(() => {
        this.holdsTurn = true;
      });
    });
  }

  /** Answered already (503 past the deadline), or the client closed its connection. */
  private answeredOrGone(): boolean {
    if (this.reply.sent) return true;
    const socket = this.reply.raw.socket ?? this.reply.request.raw.socket;
    return socket?.destroyed === true;
  }

  record(units: number): void {
    this.recorded = (this.recorded ?? 0) + units;
  }

  settle(): void {
    if (this.holdsTurn) {
      this.holdsTurn = false;
      this.budget.turns.leave();
    }
    if (this.chargedAt === null) return;
    const chargedAt = this.chargedAt;
    this.chargedAt = null;
    this.budget.settle(this.keyId, this.operation, this.charged, chargedAt, this.recorded);
  }
}

/**
 * The cost policy beside the key's in the structured fields (`RateLimit`, `RateLimit-Policy`: lists
 * of named policies, draft 11). The older single-policy fields keep the key's budget, except on a
 * 429 of this policy, where they name the budget that refused (so that a client reading only
 * `RateLimit-Remaining` and `-Reset` waits as long as `Retry-After` says).
 */
function addCostHeaders(reply: FastifyReply, decision: RateLimitDecision): void {
  const appended = (name: string, item: string) => {
    const existing = reply.getHeader(name);
    reply.header(name, typeof existing === 'string' && existing !== '' ? `${existing}, ${item}` : item);
  };
  appended('ratelimit-policy', `"cost";q=${decision.limit};w=${decision.windowSeconds}`);
  appended('ratelimit', `"cost";r=${decision.remaining};t=${decision.resetSeconds}`);
  if (!decision.allowed) {
    reply.header('ratelimit-limit', String(decision.limit));
    reply.header('ratelimit-remaining', String(decision.remaining));
    reply.header('ratelimit-reset', String(decision.resetSeconds));
  }
}

/** Gives each request of a route with `config.costBudget` its key's cost meter (after the key's own budget). */
export function costMeterStep(budget: CostBudget): GuardStep {
  return (request, reply) => {
    const principal = request.principal;
    if (principal) request.costMeter = budget.meter(principal.keyId, reply);
  };
}
