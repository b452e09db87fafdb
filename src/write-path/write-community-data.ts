import type { Database, Tx } from '../db/database.js';
import { registerSqliteTransaction } from '../db/prepared-query.js';
import { type Clock, storedNow } from '../shared/clock.js';
import { type OutboxEntry, recordOutboxEntries } from './outbox.js';

/**
 * The cached views of a community that a change can make stale. Each has a version column on
 * `communities` that cached answers and counts are keyed by (see the response and count caches).
 */
export type DataView = 'events' | 'posts';

/** The version column of each view (read by the cached reads, bumped here). */
export const dataVersionColumn = { events: 'events_version', posts: 'posts_version' } as const;

/** What a change of community data is given: its transaction and the means to say what it changed. */
export interface CommunityWrite {
  readonly tx: Tx;
  readonly communityId: string;
  /**
   * The clock's instant at the start of the change (the same for every row it writes), in the
   * unit of stored instants: epoch microseconds (docs/development.md).
   */
  readonly now: number;
  /** Says that this change alters what answers of `view` show: its version is bumped once, before commit. */
  touch(view: DataView): void;
  /**
   * Records a webhook event of this change, written to the outbox in the same transaction.
   * `data` renders the resource as the API answers it (a plain object); it is called before commit,
   * after the change, and only when some endpoint of the community wants `type`, so a write with
   * no subscriber pays nothing for it. A resource that the change deletes is rendered before the
   * delete and its `data` returns that rendering.
   */
  emit(type: string, data: () => unknown | Promise<unknown>): void;
}

export interface WriteDeps {
  database: Database;
  clock: Clock;
}

/**
 * The one way to change a community's data (API routes, import, seed, CLI, chat sync). Runs
 * `change` in one transaction, then, in that same transaction, bumps the versions of the views it
 * touched and writes its outbox entries: a change is never committed without them, and a change
 * that throws leaves nothing behind.
 */
export async function writeCommunityData<T>(
  deps: WriteDeps,
  communityId: string,
  change: (write: CommunityWrite) => Promise<T>,
): Promise<T> {
  return deps.database.db.transaction().execute(async (tx) => {
    registerSqliteTransaction(deps.database.db, tx);
    const touched = new Set<DataView>();
    const outbox: OutboxEntry[] = [];
    const now = storedNow(deps.clock);
    const result = await change({
      tx,
      communityId,
      now,
      touch: (view) => touched.add(view),
      emit: (type, data) => outbox.push({ type, render: data }),
    });
    await bumpVersions(tx, communityId, touched);
    if (outbox.length > 0) await recordOutboxEntries(tx, communityId, outbox, now);
    return result;
  });
}

async function bumpVersions(tx: Tx, communityId: string, touched: ReadonlySet<DataView>): Promise<void> {
  if (touched.size === 0) return;
  await tx
    .updateTable('communities')
    .set((eb) => Object.fromEntries([...touched].map((view) => [dataVersionColumn[view], eb(dataVersionColumn[view], '+', 1)])))
    .where('id', '=', communityId)
    .execute();
}
