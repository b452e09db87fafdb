import { type EpochMicros, type EpochMillis, epochMicros, epochMillis, microsFromMillis, millisFromMicros } from './time.js';
import { formatIsoMillis } from './timestamps.js';

/**
 * The source of time; injected so tests control it and never sleep. It counts epoch milliseconds
 * (`EpochMillis`, src/shared/time.ts): TTLs, leases, rate-limit windows and the queues are reckoned
 * in them. Instants stored in community data, and cached answers' validity, are epoch microseconds:
 * take them from `w.now` (the write path), the import's `context.now`, or `storedNow(clock)`, never
 * from `clock.now()` itself (the types refuse it).
 */
export interface Clock {
  now(): EpochMillis;
  /**
   * The same instant to the microsecond, where the source has one (the system clock): an activity
   * record's `occurred_at` (docs/activity.md). Absent (a test's clock): `now()`'s millisecond.
   */
  nowMicros?(): EpochMicros;
}

/**
 * The wall clock's millisecond (`Date.now()`, as `now()` answers it) with the microseconds within it
 * from the high-resolution clock: Node has no wall clock finer than the millisecond, and the
 * monotonic clock's sub-millisecond digits keep the instant inside the millisecond the wall clock
 * reports (never before `now()`'s, nor a millisecond past it).
 */
function systemMicros(): EpochMicros {
  const withinMilli = Math.floor((performance.timeOrigin + performance.now()) * 1000) % 1000;
  return epochMicros(Date.now() * 1000 + withinMilli);
}

export const systemClock: Clock = { now: () => epochMillis(Date.now()), nowMicros: systemMicros };

/** The clock's instant in the unit of stored community data (epoch microseconds). */
export const storedNow = (clock: Clock): EpochMicros => microsFromMillis(clock.now());

/**
 * One reading of the clock in two precisions: `stored`, the millisecond that community data keeps
 * (what `storedNow` answers), and `precise`, the same instant to the microsecond (the clock's
 * `nowMicros`, else the millisecond), never before `stored` and within its millisecond.
 */
export function clockReading(clock: Clock): { stored: EpochMicros; precise: EpochMicros } {
  if (!clock.nowMicros) {
    const stored = storedNow(clock);
    return { stored, precise: stored };
  }
  const precise = clock.nowMicros();
  return { stored: microsFromMillis(millisFromMicros(precise)), precise };
}

/** Formats an epoch-millisecond instant as an ISO 8601 UTC timestamp (operational records: API keys). */
export const toIso = (ms: EpochMillis): string => formatIsoMillis(ms);
