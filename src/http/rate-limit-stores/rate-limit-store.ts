import { type DurationMs, durationMs, type EpochMillis } from '../../shared/time.js';
/** How many requests a bucket has made in the current window, and when that window ends. */
export interface WindowCount {
  count: number;
  /** Milliseconds until the window that holds `now` ends. */
  resetMs: DurationMs;
}

/**
 * Where fixed-window counters live: this process's memory, or Redis when several instances share
 * one budget. Counting is atomic per bucket, so concurrent requests never both take the last slot.
 */
export interface RateLimitStore {
  /**
   * Counts one request of `bucket` in the window of length `windowMs` that holds `now`; `amount`
   * (default 1) counts that many units at once, negative to give some back (the cost budget).
   */
  increment(bucket: string, windowMs: DurationMs, now: EpochMillis, amount?: number): Promise<WindowCount>;
  /** The same, synchronously, for stores that need not wait (this process's memory). */
  incrementNow?(bucket: string, windowMs: DurationMs, now: EpochMillis, amount?: number): WindowCount;
  /** Connects where there is something to connect to; waits at most a bounded time. */
  start(): Promise<void>;
  /** Releases connections and timers. */
  close(): Promise<void>;
}

/** The window that holds `now`: windows are aligned to the epoch, so every instance agrees on them. */
export function windowOf(now: EpochMillis, windowMs: DurationMs): { index: number; resetMs: DurationMs } {
  const index = Math.floor(now / windowMs);
  return { index, resetMs: durationMs((index + 1) * windowMs - now) };
}
