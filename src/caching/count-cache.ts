import type { Database } from '../db/database.js';
import type { EpochMicros } from '../shared/time.js';
import { type DataVersionColumn, readDataVersion } from './data-version.js';

interface Entry {
  version: number;
  count: number;
  /** Last instant (in the unit of the `now` it is compared with: epoch µs for cached reads, inclusive) at which the count still holds; Infinity when time cannot change it. */
  validUntil: EpochMicros;
}

/** Entries kept per process before the cache starts over (each is a few dozen bytes). */
const maxEntries = 20_000;

/**
 * Exact list totals without a COUNT(*) per request. A total is cached under its community,
 * resource and filter together with the community's data version, which every write that can
 * change a total bumps in its own transaction. Each request reads the version (one primary-key
 * read) and reuses the total only when the version is unchanged and the clock has not passed the
 * moment the total stops holding (the next event to cross the reference time). The version lives
 * in the database, so a write through any instance invalidates the totals of every instance.
 */
export class CountCache {
  private readonly entries = new Map<string, Entry>();
  hits = 0;
  misses = 0;

  /** The total for `key`: cached when still exact, else computed by `compute` and remembered. */
  async total(
    database: Database,
    communityId: string,
    column: DataVersionColumn,
    key: string,
    now: EpochMicros,
    compute: () => Promise<{ count: number; validUntil: EpochMicros }>,
  ): Promise<number> {
    // The version is read before counting: a write that lands in between leaves a newer version
    // behind, so the (possibly newer) count is never reused past it.
    const version = await readDataVersion(database, communityId, column);
    const cacheKey = `${communityId}\u0000${column}\u0000${key}`;
    const entry = this.entries.get(cacheKey);
    if (entry && entry.version === version && now <= entry.validUntil) {
      this.hits++;
      return entry.count;
    }
    this.misses++;
    const { count, validUntil } = await compute();
    if (this.entries.size >= maxEntries) this.entries.clear();
    this.entries.set(cacheKey, { version, count, validUntil });
    return count;
  }
}
