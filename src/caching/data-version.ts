import type { Database } from '../db/database.js';
import { communityVersionsQuery } from '../modules/communities/communities.queries.js';
import { andThen } from '../shared/maybe-async.js';
import { CoalescedReads } from './coalesced-reads.js';

export type DataVersionColumn = 'events_version' | 'posts_version' | 'members_version';

/** Both versions of a community (0 when the community is unknown). */
interface Versions {
  events_version: number;
  posts_version: number;
  members_version: number;
}

type StoredVersion = number | bigint | string;
const versionsOf = (
  row: { events_version: StoredVersion; posts_version: StoredVersion; members_version: StoredVersion } | undefined,
): Versions =>
  row
    ? { events_version: Number(row.events_version), posts_version: Number(row.posts_version), members_version: Number(row.members_version) }
    : { events_version: 0, posts_version: 0, members_version: 0 };

/**
 * The community's current version of events or posts (0 when the community is unknown), read on
 * every cached request: a cached answer or total is reused only while it is unchanged.
 *
 * SQLite (WAL mode, outside a transaction): a version read since the last commit by any connection
 * (sqlite-commit-watch.ts) is reused without a query: until something commits, no version can have
 * changed. The epoch is taken before the read, so a commit that lands between the two leaves a
 * newer epoch behind and the version read is not reused past it. Inside a transaction the read goes
 * through Kysely: a read in the middle of another request's transaction on SQLite's single
 * connection would see writes that may yet roll back.
 *
 * PostgreSQL: one round trip, shared by requests that arrived before it was sent (coalescedReadsOf).
 */
export function readDataVersion(database: Database, communityId: string, column: DataVersionColumn): number | Promise<number> {
  if (database.engine === 'postgres') {
    const versions = coalescedReadsOf(database).read(communityId);
    return versions.then((read) => read[column]);
  }
  const watch = database.sqlite?.inTransaction === false ? database.commitWatch() : null;
  if (!watch) return andThen(communityVersionsQuery.firstNow(database.db, { communityId }), (row) => versionsOf(row)[column]);
  const epoch = watch.epochNow();
  let memo = memos.get(database);
  if (!memo || memo.epoch !== epoch || memo.versions.size >= maxMemoEntries) {
    memo = { epoch, versions: new Map() };
    memos.set(database, memo);
  }
  const known = memo.versions.get(communityId);
  if (known !== undefined) return known[column];
  const versions = memo.versions;
  return andThen(communityVersionsQuery.firstNow(database.db, { communityId }), (row) => {
    const read = versionsOf(row);
    versions.set(communityId, read);
    return read[column];
  });
}

/** Versions read since the last commit anywhere, per database (SQLite in WAL mode only). */
interface VersionMemo {
  epoch: number;
  versions: Map<string, Versions>;
}

const memos = new WeakMap<Database, VersionMemo>();
/** Communities remembered at most between two commits. */
const maxMemoEntries = 10_000;

/**
 * PostgreSQL: cached answers must be exact across instances, a write acknowledged by one instance
 * seen by the next read through any other. PostgreSQL takes a statement's snapshot when it runs
 * it, so a version read sent after a request arrived sees every write committed before; concurrent
 * requests share such reads (coalesced-reads.ts), one round trip per batch of requests under load.
 */
const coalesced = new WeakMap<Database, CoalescedReads<Versions>>();

function coalescedReadsOf(database: Database): CoalescedReads<Versions> {
  let reads = coalesced.get(database);
  if (!reads) {
    reads = new CoalescedReads((communityId) => communityVersionsQuery.first(database.db, { communityId }).then(versionsOf));
    coalesced.set(database, reads);
  }
  return reads;
}
