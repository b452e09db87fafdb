import { type Selectable, type SqlBool, sql } from 'kysely';
import { batchesOf } from '../../db/batches.js';
import type { Database, Db, Engine, Tx } from '../../db/database.js';
import { claimLeased, type LeasedQueue } from '../../db/leased-queue.js';
import { orderedRows } from '../../db/ordered-rows.js';
import type { AwardAssignmentsTable, AwardNotificationsTable, AwardsTable } from '../../db/schema.js';
import { type DurationMs, type EpochMillis, epochMillis } from '../../shared/time.js';

export type AwardRow = Selectable<AwardsTable>;
export type AwardAssignmentRow = Selectable<AwardAssignmentsTable>;

/** One award of the community, or undefined. */
export function selectAward(db: Db | Tx, communityId: string, id: string): Promise<AwardRow | undefined> {
  return db.selectFrom('awards').selectAll().where('community_id', '=', communityId).where('id', '=', id).executeTakeFirst();
}

/** The community's awards, oldest first, with how many members hold each. */
export function selectAwardsWithCounts(db: Db, communityId: string) {
  return db
    .selectFrom('awards as a')
    .leftJoin('award_assignments as s', (join) => join.onRef('s.community_id', '=', 'a.community_id').onRef('s.award_id', '=', 'a.id'))
    .select(['a.id', 'a.name', 'a.description', 'a.emoji', 'a.created_at'])
    .select((eb) => eb.fn.count<number>('s.profile_id').as('assigned_count'))
    .where('a.community_id', '=', communityId)
    .groupBy(['a.id', 'a.name', 'a.description', 'a.emoji', 'a.created_at'])
    .orderBy('a.created_at')
    .orderBy('a.id')
    .execute();
}

/** A page of the community's awards, oldest first (ties by id), with how many members hold each, and their total. */
export async function selectAwardsPageWithCounts(db: Db, communityId: string, limit: number, offset: number) {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('awards as a')
      .select(['a.id', 'a.name', 'a.description', 'a.emoji', 'a.created_at'])
      .select((eb) =>
        eb
          .selectFrom('award_assignments as s')
          .select(eb.fn.countAll<number | string>().as('n'))
          .whereRef('s.community_id', '=', 'a.community_id')
          .whereRef('s.award_id', '=', 'a.id')
          .as('assigned_count'),
      )
      .where('a.community_id', '=', communityId)
      .orderBy('a.created_at')
      .orderBy('a.id')
      .limit(limit)
      .offset(offset)
      .execute(),
    db
      .selectFrom('awards')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('community_id', '=', communityId)
      .executeTakeFirst(),
  ]);
  return { rows, total: Number(count?.n ?? 0) };
}

/** Inserts or replaces awards by id, in batches. */
export async function upsertAwards(tx: Tx, rows: readonly AwardRow[]): Promise<void> {
  for (const batch of batchesOf(rows)) {
    await tx
      .insertInto('awards')
      .values(batch)
      .onConflict((oc) =>
        oc.columns(['community_id', 'id']).doUpdateSet((eb) => ({
          name: eb.ref('excluded.name'),
          description: eb.ref('excluded.description'),
          emoji: eb.ref('excluded.emoji'),
          created_at: eb.ref('excluded.created_at'),
          updated_at: eb.ref('excluded.updated_at'),
        })),
      )
      .execute();
  }
}

/** Records an assignment unless the profile already holds the award; true when it is new. */
export async function insertAssignment(tx: Tx, row: AwardAssignmentRow): Promise<boolean> {
  const result = await tx
    .insertInto('award_assignments')
    .values(row)
    .onConflict((oc) => oc.columns(['community_id', 'award_id', 'profile_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/** Replaces the holders of an award with exactly these (the import: a record lists them all). */
export async function replaceAssignments(tx: Tx, communityId: string, awardId: string, rows: readonly AwardAssignmentRow[]): Promise<void> {
  await tx.deleteFrom('award_assignments').where('community_id', '=', communityId).where('award_id', '=', awardId).execute();
  for (const batch of batchesOf(rows)) await tx.insertInto('award_assignments').values(batch).execute();
}

/** Queues a direct message telling a recipient (in the assignment's transaction). */
export async function insertNotification(tx: Tx, row: AwardNotificationsTable): Promise<void> {
  await tx.insertInto('award_notifications').values(row).execute();
}

/** The community's awards in byte order of id, a batch at a time (the export). */
export function awardRowsInIdOrder(tx: Db, engine: Engine, communityId: string) {
  return orderedRows(tx, engine, 'awards', communityId, (q) =>
    q.select(['id', 'name', 'description', 'emoji', 'created_at', 'updated_at']),
  );
}

/** The holders of these awards (the export's `awards` records; at most a batch of ids). */
export function selectAssignmentsOfAwards(db: Db, communityId: string, awardIds: readonly string[]) {
  return db
    .selectFrom('award_assignments')
    .select(['award_id', 'profile_id', 'sender_profile_id', 'send_anonymously', 'assigned_at'])
    .where('community_id', '=', communityId)
    .where('award_id', 'in', awardIds)
    .execute();
}

/** A claimed direct message, with what sending it needs. */
export type ClaimedNotification = Pick<AwardNotificationsTable, 'id' | 'community_id' | 'channel' | 'text' | 'attempts'>;

/** The messages waiting: pending and due; claimed in the order they came due. */
const notificationQueue: LeasedQueue<ClaimedNotification> = {
  key: ['id'],
  order: ['next_attempt_at', 'id'],
  columns: ['id', 'community_id', 'channel', 'text', 'attempts'],
  waiting: (now) => sql<SqlBool>`status = 'pending' and next_attempt_at <= ${now}`,
};

/** Leases up to `limit` due messages (epoch ms), oldest first, counting the attempt (src/db/leased-queue.ts). */
export function claimNotifications(
  database: Database,
  now: EpochMillis,
  leaseMs: DurationMs,
  limit: number,
): Promise<ClaimedNotification[]> {
  return claimLeased(database, 'award_notifications', notificationQueue, now, leaseMs, limit);
}

/** Records the outcome of an attempt: sent, failed for good, or due again at `retryAt`. */
export async function settleNotification(
  database: Database,
  id: string,
  now: EpochMillis,
  outcome: { sent: true } | { sent: false; error: string; retryAt: EpochMillis | null },
): Promise<void> {
  const change = outcome.sent
    ? { status: 'sent' as const, sent_at: now, last_error: null, lease_until: epochMillis(0) }
    : outcome.retryAt === null
      ? { status: 'failed' as const, last_error: outcome.error.slice(0, 500), lease_until: epochMillis(0) }
      : { last_error: outcome.error.slice(0, 500), next_attempt_at: outcome.retryAt, lease_until: epochMillis(0) };
  await database.db.updateTable('award_notifications').set(change).where('id', '=', id).execute();
}
