import { sql } from 'kysely';
import type { Database } from '../../db/database.js';
import type { AwardNotificationsTable } from '../../db/schema.js';
import { addMillis, type DurationMs, type EpochMillis, epochMillis } from '../../shared/time.js';

/** A claimed direct message, with what sending it needs. */
export type ClaimedNotification = Pick<AwardNotificationsTable, 'id' | 'community_id' | 'channel' | 'text' | 'attempts'>;

/**
 * Leases up to `limit` due messages (epoch ms), oldest first, counting the attempt. On PostgreSQL
 * one statement picks and leases them with FOR UPDATE SKIP LOCKED, so instances take different
 * rows; on SQLite (one writer) each row is leased by a conditional update only one claimer wins.
 */
export async function claimNotifications(
  database: Database,
  now: EpochMillis,
  leaseMs: DurationMs,
  limit: number,
): Promise<ClaimedNotification[]> {
  const { db } = database;
  if (database.engine === 'postgres') {
    const result = await sql<ClaimedNotification & { next_attempt_at: number }>`
      update award_notifications set lease_until = ${now + leaseMs}, attempts = attempts + 1
      where id in (
        select id from award_notifications
        where status = 'pending' and next_attempt_at <= ${now} and lease_until < ${now}
        order by next_attempt_at, id
        limit ${limit}
        for update skip locked)
      returning id, community_id, channel, text, attempts, next_attempt_at`.execute(db);
    return result.rows
      .sort((a, b) => Number(a.next_attempt_at) - Number(b.next_attempt_at) || (a.id < b.id ? -1 : 1))
      .map(({ next_attempt_at: _n, ...row }) => row);
  }
  const rows = await db
    .selectFrom('award_notifications')
    .select(['id', 'community_id', 'channel', 'text', 'attempts'])
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where('lease_until', '<', now)
    .orderBy('next_attempt_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  const claimed: ClaimedNotification[] = [];
  for (const row of rows) {
    const result = await db
      .updateTable('award_notifications')
      .set({ lease_until: addMillis(now, leaseMs), attempts: sql`attempts + 1` })
      .where('id', '=', row.id)
      .where('status', '=', 'pending')
      .where('lease_until', '<', now)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 1) claimed.push({ ...row, attempts: row.attempts + 1 });
  }
  return claimed;
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
