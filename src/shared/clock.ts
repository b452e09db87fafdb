import { type EpochMicros, type EpochMillis, epochMillis, microsFromMillis } from './time.js';
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
}

export const systemClock: Clock = { now: () => epochMillis(Date.now()) };

/** The clock's instant in the unit of stored community data (epoch microseconds). */
export const storedNow = (clock: Clock): EpochMicros => microsFromMillis(clock.now());

/** Formats an epoch-millisecond instant as an ISO 8601 UTC timestamp (operational records: API keys). */
export const toIso = (ms: EpochMillis): string => formatIsoMillis(ms);
