/** The source of time; injected so tests control it and never sleep. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** Formats an epoch-millisecond instant as the API's ISO 8601 UTC timestamp. */
export const toIso = (ms: number): string => new Date(ms).toISOString();
