import type * as IoRedis from 'ioredis';
import type { Redis } from 'ioredis';
import { lazyRequire } from '../../shared/lazy-require.js';

const ioredis = lazyRequire<typeof IoRedis>('ioredis');

import type { DurationMs, EpochMillis } from '../../shared/time.js';
import { MemoryRateLimitStore } from './memory-store.js';
import { type RateLimitStore, type WindowCount, windowOf } from './rate-limit-store.js';

/** A rate-limit check must never hold a request up for long: Redis answers in well under a millisecond when healthy. */
const commandTimeoutMs = 100;
/** ioredis's own timeout only reclaims commands of a Redis that hangs; the decision to fall back is ours, above. */
const abandonAfterMs = 5000;
const connectTimeoutMs = 1000;
/** How long startup waits for the first connection before serving with the in-memory fallback. */
const startWaitMs = 1000;
/** After a failed or slow command, Redis is not tried again for this long, so an outage costs each request nothing. */
const coolOffMs = 1000;
/** Counters outlive their window a little, so a slightly late clock still finds them. */
const expiryGraceMs = 1000;

/**
 * Rejects when the command has not answered within commandTimeoutMs of event-loop time. When the
 * timer fires, a reply that arrived while the loop was busy (a burst of requests, a starved CPU)
 * is still unread: one setImmediate lets the poll phase read it first, so only a reply that is
 * really missing counts as a timeout (ioredis's own timer would fire before the read).
 */
async function withTimeout<T>(command: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => setImmediate(() => reject(new Error('Redis command timed out'))), commandTimeoutMs);
  });
  try {
    return await Promise.race([command, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The slice of the app logger the store needs. */
export interface StoreLog {
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
}

export interface RedisStoreOptions {
  url: string;
  keyPrefix: string;
  log: StoreLog;
}

/**
 * Fixed-window counters in Redis (INCR + PEXPIRE in one MULTI), so every instance spends one budget
 * per key. When Redis is unreachable or slow the service keeps answering: counting falls back to
 * this instance's memory (logged once per outage) while ioredis reconnects in the background.
 */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly client: Redis;
  private readonly fallback = new MemoryRateLimitStore();
  private degraded = false;
  private closing = false;
  private skipUntil = 0;

  constructor(private readonly options: RedisStoreOptions) {
    this.client = new (ioredis().Redis)(options.url, {
      lazyConnect: true,
      // Fail commands at once while disconnected instead of queueing them behind a reconnect.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      // A command that failed was already counted in memory: resending it after a reconnect would count it twice.
      autoResendUnfulfilledCommands: false,
      commandTimeout: abandonAfterMs,
      connectTimeout: connectTimeoutMs,
      // Reconnect forever, backing off from 100 ms to 5 s.
      retryStrategy: (attempt: number) => Math.min(100 * 2 ** Math.min(attempt, 6), 5000),
    });
    // Without a listener ioredis reports every failed reconnect on stderr.
    this.client.on('error', (error: Error) => this.markDegraded(error.message));
    this.client.on('ready', () => this.markHealthy());
  }

  async increment(bucket: string, windowMs: DurationMs, now: EpochMillis, amount = 1): Promise<WindowCount> {
    if (this.client.status !== 'ready' || performance.now() < this.skipUntil) {
      if (this.client.status !== 'ready') this.markDegraded(`connection ${this.client.status}`);
      return this.fallback.incrementNow(bucket, windowMs, now, amount);
    }
    const { index, resetMs } = windowOf(now, windowMs);
    const key = `${this.options.keyPrefix}rl:${bucket}:${index}`;
    try {
      const replies = await withTimeout(
        this.client
          .multi()
          .incrby(key, amount)
          .pexpire(key, resetMs + expiryGraceMs)
          .exec(),
      );
      const [error, count] = replies?.[0] ?? [new Error('no reply to INCRBY'), null];
      if (error) throw error;
      if (typeof count !== 'number') throw new Error('unexpected reply to INCRBY');
      if (this.degraded) this.markHealthy();
      return { count, resetMs };
    } catch (error) {
      this.skipUntil = performance.now() + coolOffMs;
      this.markDegraded(error instanceof Error ? error.message : String(error));
      return this.fallback.incrementNow(bucket, windowMs, now, amount);
    }
  }

  async start(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const connecting = this.client.connect().catch(() => {
      // Reported by the 'error' listener; ioredis keeps reconnecting in the background.
    });
    const waiting = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, startWaitMs);
    });
    await Promise.race([connecting, waiting]);
    clearTimeout(timer);
    if (this.client.status !== 'ready') this.markDegraded(`connection ${this.client.status}`);
  }

  async close(): Promise<void> {
    // disconnect() also stops the reconnect timer, so a closing app never waits on Redis.
    this.closing = true;
    this.client.disconnect();
    await this.fallback.close();
  }

  private markDegraded(reason: string): void {
    if (this.degraded || this.closing) return;
    this.degraded = true;
    this.options.log.warn({ reason }, 'Redis is unreachable: rate limits are counted per instance until it is back');
  }

  private markHealthy(): void {
    if (!this.degraded) return;
    this.degraded = false;
    this.skipUntil = 0;
    this.options.log.info({}, 'Redis is reachable again: rate limits are shared by every instance');
  }
}
