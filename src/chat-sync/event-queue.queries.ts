import { sql } from 'kysely';
import type { Database, Db, Tx } from '../db/database.js';
import { preparedQuery } from '../db/prepared-query.js';
import { addMillis, type DurationMs, type EpochMillis, epochMillis } from '../shared/time.js';

/** A stored delivery, claimed by one worker until `lease_until`. */
export interface QueuedEvent {
  community_id: string;
  event_id: string;
  event_type: string;
  body: string;
  attempts: number;
}

/** Stores a delivery before it is acknowledged; false when this event id is already stored (a retry). */
type QueueInsert = {
  communityId: string;
  eventId: string;
  eventType: string;
  body: string;
  now: EpochMillis;
};

// Compiled once: it runs on every acknowledged delivery.
const insertDelivery = preparedQuery((db, row: QueueInsert) =>
  db
    .insertInto('chat_event_queue')
    .values({
      community_id: row.communityId,
      event_id: row.eventId,
      event_type: row.eventType,
      body: row.body,
      received_at: row.now,
      attempts: 0,
      lease_until: epochMillis(0),
      applied_at: null,
      last_error: null,
    })
    .onConflict((oc) => oc.columns(['community_id', 'event_id']).doNothing()),
);

export async function enqueueEvent(db: Db, row: QueueInsert): Promise<boolean> {
  return (await insertDelivery.execute(db, row)) > 0;
}

const claimColumns = ['community_id', 'event_id', 'event_type', 'body', 'attempts'] as const;

/**
 * Claims up to `limit` pending deliveries, oldest first, for `leaseMs`. On PostgreSQL one
 * statement picks and leases them with FOR UPDATE SKIP LOCKED, so instances claiming at once take
 * different rows; on SQLite (one writer at a time) each row is leased by a conditional update that
 * only one claimer can win. The lease only spreads work: a delivery is applied once because the
 * write that applies it also marks it applied, on the condition that it was not yet.
 */
export async function claimEvents(database: Database, now: EpochMillis, leaseMs: DurationMs, limit: number): Promise<QueuedEvent[]> {
  const { db } = database;
  if (database.engine === 'postgres') {
    const result = await sql<QueuedEvent & { received_at: EpochMillis }>`
      update chat_event_queue set lease_until = ${now + leaseMs}, attempts = attempts + 1
      where (community_id, event_id) in (
        select community_id, event_id from chat_event_queue
        where applied_at is null and lease_until < ${now}
        order by received_at, event_id
        limit ${limit}
        for update skip locked)
      returning community_id, event_id, event_type, body, attempts, received_at`.execute(db);
    // RETURNING follows no ORDER BY: put the batch back in the order the deliveries arrived.
    return result.rows
      .sort((a, b) => Number(a.received_at) - Number(b.received_at) || (a.event_id < b.event_id ? -1 : a.event_id > b.event_id ? 1 : 0))
      .map(({ received_at: _received, ...event }) => event);
  }
  const rows = await db
    .selectFrom('chat_event_queue')
    .select(claimColumns)
    .where('applied_at', 'is', null)
    .where('lease_until', '<', now)
    .orderBy('received_at')
    .orderBy('event_id')
    .limit(limit)
    .execute();
  const claimed: QueuedEvent[] = [];
  for (const row of rows) {
    const result = await db
      .updateTable('chat_event_queue')
      .set({ lease_until: addMillis(now, leaseMs), attempts: sql`attempts + 1` })
      .where('community_id', '=', row.community_id)
      .where('event_id', '=', row.event_id)
      .where('applied_at', 'is', null)
      .where('lease_until', '<', now)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 1) claimed.push({ ...row, attempts: row.attempts + 1 });
  }
  return claimed;
}

/** Records a failed attempt: the event is tried again after `retryAt` (or given up, with the reason). */
export async function recordFailure(
  db: Db,
  event: QueuedEvent,
  error: string,
  retryAt: EpochMillis,
  giveUp: boolean,
  now: EpochMillis,
): Promise<void> {
  await db
    .updateTable('chat_event_queue')
    .set({ last_error: error.slice(0, 500), lease_until: retryAt, ...(giveUp ? { applied_at: now } : {}) })
    .where('community_id', '=', event.community_id)
    .where('event_id', '=', event.event_id)
    .execute();
}

/** How many deliveries wait (health and tests). */
export async function pendingCount(db: Db): Promise<number> {
  const row = await db
    .selectFrom('chat_event_queue')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('applied_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Marks a delivery applied, in the transaction of its writes, unless it already was: false then
 * (another instance, or this one past its lease, applied it first), and the caller writes nothing.
 */
export async function markEventApplied(tx: Tx, communityId: string, eventId: string, now: EpochMillis): Promise<boolean> {
  const marked = await tx
    .updateTable('chat_event_queue')
    .set({ applied_at: now, last_error: null })
    .where('community_id', '=', communityId)
    .where('event_id', '=', eventId)
    .where('applied_at', 'is', null)
    .executeTakeFirst();
  return Number(marked.numUpdatedRows) === 1;
}
