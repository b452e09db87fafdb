/*
 * Units of time in the types. The service counts time in three units that are all a JavaScript
 * number at run time: the clock's epoch milliseconds (TTLs, leases, rate-limit windows, the
 * operational and queue tables), the epoch microseconds of community data (what PostgreSQL's
 * timestamptz keeps: src/shared/timestamps.ts), and durations in milliseconds (settings, timeouts);
 * durations the outside world counts in whole seconds (Retry-After, rate-limit windows, Slack's
 * waits) are a fourth brand, converted to milliseconds only by millisOfSeconds.
 * Each is branded so that passing one where another is expected fails `npm run typecheck`
 * (test/shared/units.test.ts), at no run-time cost. A plain number becomes one only through a
 * constructor below that says where it comes from.
 */

declare const unit: unique symbol;

/** Epoch milliseconds: the clock's unit (`Clock.now()`). */
export type EpochMillis = number & { readonly [unit]: 'epoch-ms' };
/** Epoch microseconds (an integer): the unit of instants stored in community data. */
export type EpochMicros = number & { readonly [unit]: 'epoch-us' };
/** A length of time in milliseconds (settings, timeouts, TTLs, leases). */
export type DurationMs = number & { readonly [unit]: 'duration-ms' };

/** A length of time in seconds, as HTTP and Slack count it (Retry-After, rate-limit windows). */
export type DurationSeconds = number & { readonly [unit]: 'duration-s' };

const microsPerMilli = 1000;
const millisPerSecond = 1000;

/** Epoch milliseconds read from a source that counts them (`Date.now()`, a `Date`, a ms column read with raw SQL). */
export const epochMillis = (ms: number): EpochMillis => ms as EpochMillis;

/** Epoch microseconds read from a source that counts them (a column read with raw SQL, a parsed timestamp, a test fixture). */
export const epochMicros = (us: number): EpochMicros => us as EpochMicros;

/** A duration in milliseconds (a setting, a constant, a parsed `30s`). */
export const durationMs = (ms: number): DurationMs => ms as DurationMs;

/** A duration in seconds (a header's Retry-After, a setting counted in seconds). */
export const durationSeconds = (s: number): DurationSeconds => s as DurationSeconds;

/** The milliseconds of a duration counted in seconds. */
export const millisOfSeconds = (s: DurationSeconds): DurationMs => (s * millisPerSecond) as DurationMs;

/** The stored instant of an epoch-millisecond time (the clock's unit). */
export const microsFromMillis = (ms: EpochMillis): EpochMicros => (Math.round(ms) * microsPerMilli) as EpochMicros;

/** Epoch milliseconds of a stored instant, rounded down (for Date arithmetic). */
export const millisFromMicros = (us: EpochMicros): EpochMillis => Math.floor(us / microsPerMilli) as EpochMillis;

/** The instant `duration` after `at` (both in milliseconds). */
export const addMillis = (at: EpochMillis, duration: DurationMs): EpochMillis => (at + duration) as EpochMillis;

/** The instant `duration` before `at` (both in milliseconds). */
export const subtractMillis = (at: EpochMillis, duration: DurationMs): EpochMillis => (at - duration) as EpochMillis;

/** The instant after every other: the validity of an answer that time alone never ends. */
export const endOfTime: EpochMicros = Number.POSITIVE_INFINITY as EpochMicros;
