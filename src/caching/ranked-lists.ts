import type { Database } from '../db/database.js';
import { type DataVersionColumn, readDataVersion } from './data-version.js';

/** A query's whole result, in rank order, and the data version it was read at. */
export interface RankedList {
  version: number;
  ids: readonly string[];
}

/** What a lookup found: the list, and whether this call had to rank it (a miss costs the ranking). */
export interface RankedLookup {
  list: RankedList;
  ranked: boolean;
}

/** A bound on what one id costs the cache (a 36-character string, its header and the array's slot). */
const bytesPerId = 64;
const bytesPerEntry = 256;

/**
 * Whole ranked result lists of queries (searches), kept per community, query and data version, so
 * that a repeated query, or another page of it, costs a page's read instead of ranking every match
 * again (docs/search.md, "Ranked lists"). The design is the count cache's and the response cache's:
 * a list is kept with the community's data version read *before* it was ranked, and used only while
 * that version is unchanged (every writer bumps it in its own transaction, through any instance).
 * Concurrent misses of one query share one ranking. Bounded by an estimate of bytes, least recently
 * used first out; a budget of 0 turns it off (`enabled` false: callers rank per page as before).
 */
export class RankedListCache {
  private readonly entries = new Map<string, { list: RankedList; bytes: number }>();
  private readonly pending = new Map<string, Promise<RankedList>>();
  private bytes = 0;
  hits = 0;
  misses = 0;

  constructor(private readonly budgetBytes: number) {}

  get enabled(): boolean {
    return this.budgetBytes > 0;
  }

  /** The list of `key` at the community's current version: kept, being ranked, or ranked now by `rank`. */
  async lookup(
    database: Database,
    communityId: string,
    column: DataVersionColumn,
    key: string,
    rank: () => Promise<readonly string[]>,
  ): Promise<RankedLookup> {
    const version = await readDataVersion(database, communityId, column);
    const cacheKey = `${communityId}\u0000${column}\u0000${key}`;
    const entry = this.entries.get(cacheKey);
    if (entry && entry.list.version === version) {
      this.hits++;
      this.entries.delete(cacheKey);
      this.entries.set(cacheKey, entry);
      return { list: entry.list, ranked: false };
    }
    const pendingKey = `${cacheKey}\u0000${version}`;
    const inFlight = this.pending.get(pendingKey);
    if (inFlight) return { list: await inFlight, ranked: false };
    this.misses++;
    const ranking = rank().then((ids) => ({ version, ids }));
    this.pending.set(pendingKey, ranking);
    try {
      const list = await ranking;
      this.remember(cacheKey, list);
      return { list, ranked: true };
    } finally {
      this.pending.delete(pendingKey);
    }
  }

  /** True while `list` is still the community's current one (a page read after the lookup checks it: a write may land between). */
  async current(database: Database, communityId: string, column: DataVersionColumn, list: RankedList): Promise<boolean> {
    return (await readDataVersion(database, communityId, column)) === list.version;
  }

  private remember(cacheKey: string, list: RankedList): void {
    const previous = this.entries.get(cacheKey);
    if (previous) {
      this.entries.delete(cacheKey);
      this.bytes -= previous.bytes;
    }
    const bytes = bytesPerEntry + list.ids.length * bytesPerId;
    // A list larger than a quarter of the budget would push out everything else for one query.
    if (bytes > this.budgetBytes / 4) return;
    this.entries.set(cacheKey, { list, bytes });
    this.bytes += bytes;
    for (const [oldestKey, oldest] of this.entries) {
      if (this.bytes <= this.budgetBytes) break;
      this.entries.delete(oldestKey);
      this.bytes -= oldest.bytes;
    }
  }
}
