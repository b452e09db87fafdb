import type { Database } from '../db/database.js';
import { type Clock, storedNow } from '../shared/clock.js';
import { type EpochMicros, endOfTime } from '../shared/time.js';
import { dataVersionColumn, type DataView as View } from '../write-path/write-community-data.js';
import type { CountCache } from './count-cache.js';
import type { RankedListCache } from './ranked-lists.js';
import type { ResponseCache } from './response-cache.js';

/** What a cached read is given (a subset of the app's dependencies). */
export interface CachedReadDeps {
  database: Database;
  clock: Clock;
  responses: ResponseCache;
  /** For renders that need exact list totals. */
  counts: CountCache;
  /** For renders of ranked results (searches); absent, each page is ranked on its own. */
  rankings?: RankedListCache;
}

/** A rendered answer: the whole response body as JSON text, and until when time alone leaves it exact. */
export interface Answer {
  body: string;
  /** Last instant (epoch µs, the unit of stored instants, inclusive) at which the answer holds; omitted: until the view changes. */
  validUntil?: EpochMicros;
}

/** How one read of the API is cached. */
export interface CachedReadSpec<Args extends unknown[]> {
  /** Names the read in cache keys: two reads never share an entry. */
  name: string;
  /** The data the answer shows: a write that touches it (`w.touch(view)`) makes every cached answer of it stale. */
  view: View;
  /** Everything else the answer depends on, normalised (two requests with the same answer should have the same key). */
  key: (now: EpochMicros, ...args: Args) => string;
  /** The answer on a miss. `now` is the instant the answer is for (the clock's, read once per request, in epoch µs). */
  render: (deps: CachedReadDeps, communityId: string, now: EpochMicros, ...args: Args) => Promise<Answer>;
}

/** A cached read: the response body's bytes, synchronously on a hit where the engine allows it (its text when the cache is off). */
export type CachedRead<Args extends unknown[]> = (
  deps: CachedReadDeps,
  communityId: string,
  ...args: Args
) => Buffer | Promise<Buffer | string>;

/**
 * Makes a read of community data cached: the one place that knows the cache key (community, view,
 * name, key), the version column the answer is checked against and its validity window. The answer
 * is reused while the view's data version is unchanged (every writer bumps it through the write
 * path) and the clock has not passed `validUntil`. Routes only send what it returns.
 */
export function cachedRead<Args extends unknown[]>(spec: CachedReadSpec<Args>): CachedRead<Args> {
  const column = dataVersionColumn[spec.view];
  return (deps, communityId, ...args) => {
    // In the unit of stored instants, so that it compares with validUntil (e.g. the next event's end).
    const now = storedNow(deps.clock);
    const key = `${spec.name} ${spec.key(now, ...args)}`;
    return deps.responses.body(deps.database, communityId, column, key, now, async () => {
      const answer = await spec.render(deps, communityId, now, ...args);
      return { body: answer.body, validUntil: answer.validUntil ?? endOfTime };
    });
  };
}
