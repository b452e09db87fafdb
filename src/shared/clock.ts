import { type EpochMicros, type EpochMillis, epochMillis, microsFromMillis } from './time.js';
import { formatIsoMillis } from './timestamps.js';

/**
 * The source of time; injected so tests control it and never sleep. It counts epoch milliseconds:
 * TTLs, rate-limit windows and cache validity are reckoned in them. Instants stored in community
 * data are epoch microseconds (src/shared/timestamps.ts): take them from `w.now` (the write path),
 * the import's `context.now`, or `storedNow(clock)`, never from `clock.now()` itself.
 */
export interface Clock {
  now(): EpochMillis;
}

export const systemClock: Clock = { now: () => epochMillis(Date.now()) };

/** The clock's instant in the unit of stored community data (epoch microseconds). */
export const storedNow = (clock: Clock): EpochMicros => microsFromMillis(clock.now());

/** Formats an epoch-millisecond instant as an ISO 8601 UTC timestamp (operational records: API keys). */
export const toIso = (ms: EpochMillis): string => formatIsoMillis(ms);
