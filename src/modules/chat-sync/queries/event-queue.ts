import { type SqlBool, sql } from 'kysely';
import type { Database, Db, Tx } from '../../../db/database.js';
import { claimLeased, type LeasedQueue } from '../../../db/leased-queue.js';
import { preparedQuery } from '../../../db/prepared-query.js';
import { type DurationMs, type EpochMillis, epochMillis } from '../../../shared/time.js';

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

/** The deliveries waiting: not applied yet; claimed in the order they arrived. */
const eventQueue: LeasedQueue<QueuedEvent> = {
  key: ['community_id', 'event_id'],
  order: ['received_at', 'event_id'],
  columns: ['community_id', 'event_id', 'event_type', 'body', 'attempts'],
  waiting: () => sql<SqlBool>`applied_at is null`,
};

/**
 * Claims up to `limit` pending deliveries, oldest first, for `leaseMs` (src/db/leased-queue.ts). The
 * lease only spreads work: a delivery is applied once because the write that applies it also marks
 * it applied, on the condition that it was not yet.
 */
export function claimEvents(database: Database, now: EpochMillis, leaseMs: DurationMs, limit: number): Promise<QueuedEvent[]> {
  return claimLeased(database, 'chat_event_queue', eventQueue, now, leaseMs, limit);
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

/** How many of a community's deliveries wait to be applied, and when the oldest arrived (the console's status). */
export async function communityQueueState(db: Db, communityId: string): Promise<{ length: number; oldest: EpochMillis | null }> {
  const row = await db
    .selectFrom('chat_event_queue')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('received_at').as('oldest')])
    .where('community_id', '=', communityId)
    .where('applied_at', 'is', null)
    .executeTakeFirstOrThrow();
  return { length: Number(row.n), oldest: row.oldest === null ? null : epochMillis(Number(row.oldest)) };
}

/** How many chat events wait to be applied, in every community, and the oldest one's received_at (the metrics' gauges). */
export const chatEventQueueGauge = (db: Db) =>
  db
    .selectFrom('chat_event_queue')
    .select((eb) => [eb.fn.countAll().as('n'), eb.fn.min('received_at').as('oldest')])
    .where('applied_at', 'is', null)
    .executeTakeFirstOrThrow();
