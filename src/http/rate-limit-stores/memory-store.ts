import type { DurationMs, EpochMillis } from '../../shared/time.js';
import { type RateLimitStore, type WindowCount, windowOf } from './rate-limit-store.js';

/** Buckets beyond this many in one window share one counter, so a flood of addresses cannot exhaust memory. */
const defaultMaxBuckets = 100_000;
const overflowBucket = '\u0000overflow';

interface Generation {
  index: number;
  counts: Map<string, number>;
}

/**
 * Fixed-window counters in this process. Only the current window is kept per window length: when
 * the window moves on, the whole previous generation is dropped at once (no sweep, no growth).
 */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly generations = new Map<number, Generation>();

  constructor(private readonly maxBuckets = defaultMaxBuckets) {}

  /** Counts synchronously; exposed so the Redis store can fall back without an extra tick. */
  incrementNow(bucket: string, windowMs: DurationMs, now: EpochMillis, amount = 1): WindowCount {
    const { index, resetMs } = windowOf(now, windowMs);
    let generation = this.generations.get(windowMs);
    if (!generation || generation.index !== index) {
      generation = { index, counts: new Map() };
      this.generations.set(windowMs, generation);
    }
    const counts = generation.counts;
    const target = counts.has(bucket) || counts.size < this.maxBuckets ? bucket : overflowBucket;
    const count = (counts.get(target) ?? 0) + amount;
    counts.set(target, count);
    return { count, resetMs };
  }

  async increment(bucket: string, windowMs: DurationMs, now: EpochMillis, amount = 1): Promise<WindowCount> {
    return this.incrementNow(bucket, windowMs, now, amount);
  }

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.generations.clear();
  }
}
