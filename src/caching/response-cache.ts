import type { Database } from '../db/database.js';
import { andThen } from '../shared/maybe-async.js';
import type { EpochMicros } from '../shared/time.js';
import { type DataVersionColumn, readDataVersion } from './data-version.js';

interface Entry {
  version: number;
  /** Last instant (in the unit of the `now` it is compared with: epoch µs for cached reads, inclusive) at which the body still holds; Infinity when time cannot change it. */
  validUntil: EpochMicros;
  /** UTF-8 bytes, so a hit is written as it is (a string would be encoded again on every send). */
  body: Buffer;
}

/** What a miss produces: the serialised body and until when it holds. */
export interface Rendered {
  body: string;
  validUntil: EpochMicros;
}

/**
 * Serialised answers of the hot reads (event get, event and post lists), reused while they are
 * exactly what a fresh read would return. The design is the count cache's (count-cache.ts): an
 * answer is kept with the community's data version read *before* it was rendered, and reused only
 * while that version is unchanged and the clock has not reached the moment the answer stops
 * holding (the next event to cross "now" in a time-relative list). Every write that changes what
 * an event or post record shows bumps the version in its own transaction (imports, deletes,
 * attendee changes), and the version lives in the database, so a write through any instance or
 * the CLI is seen by every instance on its next request. Bounded by bytes, least recently used
 * first out; a budget of 0 turns the cache off.
 */
export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  hits = 0;
  misses = 0;

  constructor(private readonly budgetBytes: number) {}

  /**
   * The answer for `key`: the cached bytes while they still hold, else what `render` produces
   * (remembered). A hit on SQLite is synchronous; a miss, or any read on PostgreSQL, is a promise.
   * With the cache off the rendered text is answered as it is: its UTF-8 copy would only be
   * garbage (80 kB of a 700 kB page's allocations, docs/performance.md).
   */
  body(
    database: Database,
    communityId: string,
    column: DataVersionColumn,
    key: string,
    now: EpochMicros,
    render: () => Promise<Rendered>,
  ): Buffer | Promise<Buffer | string> {
    if (this.budgetBytes <= 0) return render().then((rendered) => rendered.body);
    const cacheKey = `${communityId}\u0000${column}\u0000${key}`;
    return andThen(
      readDataVersion(database, communityId, column),
      (version) => this.lookup(cacheKey, version, now) ?? this.renderAndRemember(cacheKey, version, render),
    );
  }

  private lookup(cacheKey: string, version: number, now: EpochMicros): Buffer | undefined {
    const entry = this.entries.get(cacheKey);
    if (!entry || entry.version !== version || now > entry.validUntil) return undefined;
    this.hits++;
    // Re-inserting keeps the Map in recency order for eviction.
    this.entries.delete(cacheKey);
    this.entries.set(cacheKey, entry);
    return entry.body;
  }

  private async renderAndRemember(cacheKey: string, version: number, render: () => Promise<Rendered>): Promise<Buffer> {
    this.misses++;
    const rendered = await render();
    const body = Buffer.from(rendered.body);
    this.remember(cacheKey, { version, validUntil: rendered.validUntil, body });
    return body;
  }

  private remember(cacheKey: string, entry: Entry): void {
    const previous = this.entries.get(cacheKey);
    if (previous) {
      this.entries.delete(cacheKey);
      this.bytes -= previous.body.length;
    }
    // An answer larger than a quarter of the budget would push out everything else for one page.
    if (entry.body.length > this.budgetBytes / 4) return;
    this.entries.set(cacheKey, entry);
    this.bytes += entry.body.length;
    for (const [oldestKey, oldest] of this.entries) {
      if (this.bytes <= this.budgetBytes) break;
      this.entries.delete(oldestKey);
      this.bytes -= oldest.body.length;
    }
  }
}
