import type { Database } from '../db/database.js';
import { preparedQuery } from '../db/prepared-query.js';
import { andThen } from '../shared/maybe-async.js';

export type DataVersionColumn = 'events_version' | 'posts_version';

interface Entry {
  version: number;
  count: number;
  /** Last instant (in the unit of the `now` it is compared with: epoch µs for cached reads, inclusive) at which the count still holds; Infinity when time cannot change it. */
  validUntil: number;
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
    now: number,
    compute: () => Promise<{ count: number; validUntil: number }>,
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

const versionQueries = {
  events_version: preparedQuery((db, p: { communityId: string }) =>
    db.selectFrom('communities').select('events_version as version').where('id', '=', p.communityId),
  ),
  posts_version: preparedQuery((db, p: { communityId: string }) =>
    db.selectFrom('communities').select('posts_version as version').where('id', '=', p.communityId),
  ),
};

/** Versions read since the last commit anywhere, per database (SQLite in WAL mode only). */
interface VersionMemo {
  epoch: number;
  versions: Map<string, number>;
}

const memos = new WeakMap<Database, VersionMemo>();
/** Communities x 2 columns remembered at most between two commits. */
const maxMemoEntries = 10_000;

/**
 * The community's current version of events or posts (0 when the community is unknown). Read on
 * every cached request, so it is a compiled read (prepared-query.ts): on SQLite outside a
 * transaction one prepared statement run synchronously, so that a cached answer costs no promise.
 * Inside a transaction, and on PostgreSQL, it goes through Kysely: a read in the middle of another
 * request's transaction on SQLite's single connection would see writes that may yet roll back.
 *
 * On SQLite, a version read since the last commit by any connection (sqlite-commit-watch.ts) is
 * reused without a query: until something commits, no version can have changed. The epoch is
 * taken before the read, so a commit that lands between the two leaves a newer epoch behind and
 * the version read is not reused past it.
 */
export function readDataVersion(database: Database, communityId: string, column: DataVersionColumn): number | Promise<number> {
  const watch = database.sqlite?.inTransaction === false ? database.commitWatch() : null;
  if (!watch) return andThen(versionQueries[column].firstNow(database.db, { communityId }), versionOf);
  const epoch = watch.epochNow();
  let memo = memos.get(database);
  if (!memo || memo.epoch !== epoch || memo.versions.size >= maxMemoEntries) {
    memo = { epoch, versions: new Map() };
    memos.set(database, memo);
  }
  const key = column === 'events_version' ? `e${communityId}` : `p${communityId}`;
  const known = memo.versions.get(key);
  if (known !== undefined) return known;
  const versions = memo.versions;
  return andThen(versionQueries[column].firstNow(database.db, { communityId }), (row) => {
    const version = versionOf(row);
    versions.set(key, version);
    return version;
  });
}

const versionOf = (row: { version: number | bigint | string } | undefined): number => (row ? Number(row.version) : 0);
