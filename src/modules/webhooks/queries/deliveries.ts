import type { Insertable } from 'kysely';
import type { Database, Db } from '../../../db/database.js';
import type { WebhookDeliveriesTable, WebhookDeliveryStatus } from '../../../db/schema.js';
import { newUuid } from '../../../shared/ids.js';
import { addMillis, type DurationMs, type EpochMillis } from '../../../shared/time.js';
import { insertAttempt } from './attempts.js';
import { noteAttemptOnEndpoint } from './endpoints.js';

/** What one attempt got: the receiver's status, or the reason there was none. */
export interface AttemptResult {
  status: number | null;
  error: string | null;
  /** From the request's start to the answer's end (or the failure), in whole milliseconds. */
  durationMs: DurationMs;
  /** The first KiB of the receiver's answer (UTF-8, a character cut in two replaced), "" when there was none. */
  body: string;
}

/** A leased delivery with what sending it needs from its endpoint. */
export interface DueDelivery {
  id: string;
  endpoint_id: string;
  webhook_id: string;
  payload: string;
  attempts: number;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: EpochMillis | null;
  disabled_at: EpochMillis | null;
  failing_since: EpochMillis | null;
}

export interface ClaimOptions {
  batchSize: number;
  perEndpoint: number;
  /** The lease length for a claim whose longest per-endpoint queue has `count` deliveries. */
  leaseMs: (count: number) => DurationMs;
}

/**
 * Leases the due deliveries, oldest change first, at most `perEndpoint` of one endpoint. The lease
 * is one UPDATE that checks again that each chosen row is due and free, so two workers can never
 * both hold one (on PostgreSQL a concurrent update waits and then sees the other's lease). On
 * PostgreSQL its rows are taken with `FOR UPDATE SKIP LOCKED`, so concurrent instances take
 * different rows instead of queueing on each other; on SQLite the statement is the only writer.
 */
export async function claimDueDeliveries(
  database: Database,
  now: EpochMillis,
  owner: string,
  options: ClaimOptions,
): Promise<DueDelivery[]> {
  const { db } = database;
  const due = await db
    .selectFrom('webhook_deliveries')
    .select(['id', 'endpoint_id'])
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
    .orderBy('created_at')
    .orderBy('position')
    .orderBy('id')
    .limit(options.batchSize)
    .execute();
  const perEndpoint = new Map<string, number>();
  const chosen: string[] = [];
  for (const row of due) {
    const count = (perEndpoint.get(row.endpoint_id) ?? 0) + 1;
    if (count > options.perEndpoint) continue;
    perEndpoint.set(row.endpoint_id, count);
    chosen.push(row.id);
  }
  if (chosen.length === 0) return [];
  const longest = Math.max(...perEndpoint.values());
  const leased = await db
    .updateTable('webhook_deliveries')
    .set({ lease_owner: owner, lease_until: addMillis(now, options.leaseMs(longest)) })
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('id', 'in', chosen)
        .where('status', '=', 'pending')
        .where((inner) => inner.or([inner('lease_until', 'is', null), inner('lease_until', '<=', now)]))
        .$if(database.engine === 'postgres', (query) => query.forUpdate().skipLocked()),
    )
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
    .returning('id')
    .execute();
  const ids = leased.map((row) => row.id);
  if (ids.length === 0) return [];
  const rows = await database.db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .select([
      'd.id',
      'd.endpoint_id',
      'd.webhook_id',
      'd.payload',
      'd.attempts',
      'd.created_at',
      'd.position',
      'e.url',
      'e.secret',
      'e.previous_secret',
      'e.previous_secret_expires_at',
      'e.disabled_at',
      'e.failing_since',
    ])
    .where('d.id', 'in', ids)
    .where('d.lease_owner', '=', owner)
    .orderBy('d.created_at')
    .orderBy('d.position')
    .orderBy('d.id')
    .execute();
  return rows.map(({ created_at: _c, position: _p, ...row }) => row);
}

export interface AttemptOutcome {
  /** When the attempt started, and when it ended (epoch ms). */
  sentAt: EpochMillis;
  now: EpochMillis;
  attempts: number;
  delivered: boolean;
  result: AttemptResult;
  /** When the next attempt is due; null when there is none (delivered, failed, or the endpoint disabled). */
  nextAttemptAt: EpochMillis | null;
  /** The reason to disable the endpoint, when this attempt does. */
  disable: string | null;
}

/**
 * Writes one attempt's outcome, only while this worker still holds the lease, then its line of the
 * attempt log, then the endpoint's state. Separate statements, not one transaction: a crash between
 * them loses at most that log line or the start of a failing run (failing_since), which the next
 * failure writes again.
 */
export async function recordAttempt(database: Database, delivery: DueDelivery, owner: string, outcome: AttemptOutcome): Promise<void> {
  const { sentAt, now, attempts, delivered, result, nextAttemptAt, disable } = outcome;
  const { db } = database;
  const written = await db
    .updateTable('webhook_deliveries')
    .set({
      status: delivered ? 'delivered' : nextAttemptAt === null ? 'failed' : 'pending',
      attempts,
      next_attempt_at: nextAttemptAt ?? now,
      lease_owner: null,
      lease_until: null,
      last_response_status: result.status,
      last_error: delivered ? null : (result.error ?? `answered ${result.status}`),
      delivered_at: delivered ? now : null,
      updated_at: now,
    })
    .where('id', '=', delivery.id)
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  if (Number(written.numUpdatedRows) === 0) return;
  await insertAttempt(db, {
    id: newUuid(),
    delivery_id: delivery.id,
    attempted_at: sentAt,
    response_status: result.status,
    duration_ms: result.durationMs,
    error: result.error,
  });
  await noteAttemptOnEndpoint(database, delivery, { delivered, disable, now });
}

/** Marks leased deliveries of a disabled endpoint failed without sending them. */
export async function settleDisabled(
  database: Database,
  deliveries: readonly DueDelivery[],
  owner: string,
  now: EpochMillis,
): Promise<void> {
  if (deliveries.length === 0) return;
  await database.db
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', lease_owner: null, lease_until: null, last_error: 'endpoint disabled', updated_at: now })
    .where(
      'id',
      'in',
      deliveries.map((delivery) => delivery.id),
    )
    .where('lease_owner', '=', owner)
    .execute();
}

/**
 * Deletes delivered and failed deliveries last changed before `before` (epoch ms), a thousand per
 * statement so that no statement holds SQLite's write lock for long; answers how many.
 */
export async function pruneSettledDeliveries(database: Database, before: EpochMillis): Promise<number> {
  let removed = 0;
  for (;;) {
    const result = await database.db
      .deleteFrom('webhook_deliveries')
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('status', 'in', ['delivered', 'failed'])
          .where('updated_at', '<', before)
          .limit(1000),
      )
      .executeTakeFirst();
    const count = Number(result.numDeletedRows);
    removed += count;
    if (count < 1000) return removed;
  }
}

/** Inserts deliveries, a delivery already made for its (endpoint, webhook id) skipped; at most 1000 rows a statement. */
export async function insertDeliveries(db: Db, rows: readonly Insertable<WebhookDeliveriesTable>[]): Promise<void> {
  // Parameters per statement stay under both engines' limits (SQLite 32,766; PostgreSQL 65,535).
  for (let start = 0; start < rows.length; start += 1000)
    await db
      .insertInto('webhook_deliveries')
      .values(rows.slice(start, start + 1000))
      .onConflict((conflict) => conflict.columns(['endpoint_id', 'webhook_id']).doNothing())
      .execute();
}

/** Makes deliveries of an endpoint due again now, as new (one by id, or all created since an instant); answers how many. */
export async function resetDeliveries(
  db: Db,
  endpointId: string,
  which: { id: string } | { since: EpochMillis },
  now: EpochMillis,
): Promise<number> {
  let query = db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', attempts: 0, next_attempt_at: now, lease_owner: null, lease_until: null, updated_at: now })
    .where('endpoint_id', '=', endpointId);
  query = 'id' in which ? query.where('id', '=', which.id) : query.where('created_at', '>=', which.since);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Makes at most `cap` failed deliveries of an endpoint created at or after `since` due again now,
 * oldest first, in one statement (all of them or none); answers how many.
 */
export async function resetFailedDeliveries(
  db: Db,
  endpointId: string,
  since: EpochMillis,
  cap: number,
  now: EpochMillis,
): Promise<number> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', attempts: 0, next_attempt_at: now, lease_owner: null, lease_until: null, updated_at: now })
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('endpoint_id', '=', endpointId)
        .where('status', '=', 'failed')
        .where('created_at', '>=', since)
        .orderBy('created_at')
        .orderBy('position')
        .limit(cap),
    )
    .where('status', '=', 'failed')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** How many failed deliveries of an endpoint were created at or after `since`. */
export async function countFailedDeliveriesSince(db: Db, endpointId: string, since: EpochMillis): Promise<number> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'failed')
    .where('created_at', '>=', since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** How many deliveries are pending, in every community, and the oldest one's created_at (the metrics' gauges). */
export const pendingDeliveriesGauge = (db: Db) =>
  db
    .selectFrom('webhook_deliveries')
    .select((eb) => [eb.fn.countAll().as('n'), eb.fn.min('created_at').as('oldest')])
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();

/** One delivery by id, within a community when one is given (the API), else any (the operator's CLI). */
export function selectDelivery(db: Db, id: string, communityId: string | null) {
  let query = db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id);
  if (communityId !== null) query = query.where('community_id', '=', communityId);
  return query.executeTakeFirst();
}

/** A page of an endpoint's deliveries, newest first. */
export function selectDeliveries(db: Db, endpointId: string, status: WebhookDeliveryStatus | null, limit: number, offset = 0) {
  let query = db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId);
  if (status !== null) query = query.where('status', '=', status);
  return query.orderBy('created_at', 'desc').orderBy('position', 'desc').limit(limit).offset(offset).execute();
}

/** How many deliveries an endpoint has (of one status when given). */
export async function countDeliveries(db: Db, endpointId: string, status: WebhookDeliveryStatus | null): Promise<number> {
  let query = db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('endpoint_id', '=', endpointId);
  if (status !== null) query = query.where('status', '=', status);
  return Number((await query.executeTakeFirst())?.n ?? 0);
}
