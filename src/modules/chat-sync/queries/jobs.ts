import { type SqlBool, sql } from 'kysely';
import type { Database, Db } from '../../../db/database.js';
import { claimLeased, type LeasedQueue } from '../../../db/leased-queue.js';
import type { ChatSyncJobState, ChatSyncJobsTable } from '../../../db/schema.js';
import type { DurationMs, EpochMillis } from '../../../shared/time.js';

/** Every statement on `chat_sync_jobs` (the backfills the server runs for the API, docs/chat.md). */

const activeStates: readonly ChatSyncJobState[] = ['queued', 'running'];
// As literal text: the conflict target must name the partial index's own condition (migration 021),
// which neither engine can match with bound parameters.
const activeCondition = sql<SqlBool>`state in ('queued', 'running')`;

/**
 * Stores a new queued job unless the community already has a queued or running one (the partial
 * unique index `chat_sync_jobs_active` decides, so two starts at once cannot both insert); true when stored.
 */
export async function insertJobUnlessActive(db: Db, row: ChatSyncJobsTable): Promise<boolean> {
  const inserted = await db
    .insertInto('chat_sync_jobs')
    .values(row)
    .onConflict((oc) => oc.column('community_id').where(activeCondition).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** The community's queued or running job, if any. */
export function selectActiveJob(db: Db, communityId: string) {
  return db
    .selectFrom('chat_sync_jobs')
    .selectAll()
    .where('community_id', '=', communityId)
    .where('state', 'in', activeStates)
    .executeTakeFirst();
}

/** One job of a community. */
export function selectJob(db: Db, communityId: string, id: string) {
  return db.selectFrom('chat_sync_jobs').selectAll().where('community_id', '=', communityId).where('id', '=', id).executeTakeFirst();
}

/** A job as a worker claimed it. */
export interface ClaimedJob {
  id: string;
  community_id: string;
  since: EpochMillis | null;
  attempts: number;
}

const jobQueue: LeasedQueue<ClaimedJob> = {
  key: ['id'],
  order: ['created_at', 'id'],
  columns: ['id', 'community_id', 'since', 'attempts'],
  // A running job whose lease ran out is waiting too: its instance died, another takes it over.
  waiting: () => activeCondition,
};

/**
 * Claims the oldest waiting job (queued, or running with its lease run out) for `leaseMs`
 * (src/db/leased-queue.ts). The lease's end (`now + leaseMs`) is the claim's token: every later
 * write of the worker names it, so an instance that lost its job (stalled past its lease) writes nothing.
 */
export async function claimJob(database: Database, now: EpochMillis, leaseMs: DurationMs): Promise<ClaimedJob | undefined> {
  const [job] = await claimLeased(database, 'chat_sync_jobs', jobQueue, now, leaseMs, 1);
  return job && { ...job, since: job.since === null ? null : (Number(job.since) as EpochMillis) };
}

/**
 * Moves the lease of a job this worker holds (`lease` is the end it set) to `until`, marking it
 * running and storing its progress; false when the job is no longer this worker's.
 */
export async function renewJob(
  db: Db,
  id: string,
  lease: EpochMillis,
  until: EpochMillis,
  change: { progress?: string; now: EpochMillis },
): Promise<boolean> {
  const result = await db
    .updateTable('chat_sync_jobs')
    .set((eb) => ({
      state: 'running',
      lease_until: until,
      started_at: eb.fn.coalesce('started_at', sql.lit(change.now)),
      updated_at: change.now,
      ...(change.progress === undefined ? {} : { progress: change.progress }),
    }))
    .where('id', '=', id)
    .where('lease_until', '=', lease)
    .where('state', 'in', activeStates)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Ends a job this worker holds: succeeded with its counts, or failed with the reason; false when it is not its own any more. */
export async function finishJob(
  db: Db,
  id: string,
  lease: EpochMillis,
  end: { state: 'succeeded' | 'failed'; progress?: string; error: string | null; now: EpochMillis },
): Promise<boolean> {
  const result = await db
    .updateTable('chat_sync_jobs')
    .set({
      state: end.state,
      error: end.error,
      finished_at: end.now,
      updated_at: end.now,
      lease_until: 0 as EpochMillis,
      ...(end.progress === undefined ? {} : { progress: end.progress }),
    })
    .where('id', '=', id)
    .where('lease_until', '=', lease)
    .where('state', 'in', activeStates)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Lets go of a running job this worker holds (the server stops): any instance may claim it at once. */
export async function releaseJob(db: Db, id: string, lease: EpochMillis, now: EpochMillis): Promise<void> {
  await db
    .updateTable('chat_sync_jobs')
    .set({ lease_until: 0 as EpochMillis, updated_at: now })
    .where('id', '=', id)
    .where('lease_until', '=', lease)
    .where('state', '=', 'running')
    .execute();
}
