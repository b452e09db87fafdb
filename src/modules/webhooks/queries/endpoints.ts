import type { ExpressionBuilder } from 'kysely';
import { selectInBatches } from '../../../db/batches.js';
import type { Db, Tx } from '../../../db/database.js';
import type { DB, WebhookDeliveryStatus, WebhookEndpointsTable } from '../../../db/schema.js';

/** A community's endpoints, oldest first. */
export const selectEndpoints = (db: Db | Tx, communityId: string) =>
  db.selectFrom('webhook_endpoints').selectAll().where('community_id', '=', communityId).orderBy('created_at').orderBy('id').execute();

/** One endpoint by id, within a community when one is given (the API), else any (the operator's CLI). */
export function selectEndpoint(db: Db | Tx, id: string, communityId: string | null) {
  let query = db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id);
  if (communityId !== null) query = query.where('community_id', '=', communityId);
  return query.executeTakeFirst();
}

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

/** The attempts of deliveries, oldest first within each, in batches. */
export function selectAttempts(db: Db, deliveryIds: readonly string[]) {
  return selectInBatches(deliveryIds, (batch) =>
    db
      .selectFrom('webhook_delivery_attempts')
      .select(['delivery_id', 'attempted_at', 'response_status', 'duration_ms', 'error'])
      .where('delivery_id', 'in', batch)
      .orderBy('attempted_at')
      .orderBy('id')
      .execute(),
  );
}

/** Registers an endpoint. */
export async function insertEndpoint(db: Db, row: WebhookEndpointsTable): Promise<void> {
  await db.insertInto('webhook_endpoints').values(row).execute();
}

/** Removes an endpoint; its deliveries go with it (foreign key, on delete cascade). */
export async function deleteEndpoint(db: Db, id: string): Promise<void> {
  await db.deleteFrom('webhook_endpoints').where('id', '=', id).execute();
}

/** Sets an endpoint's signing secrets (the one it replaces, if any, and until when it keeps signing). */
export async function updateEndpointSecrets(
  db: Db,
  id: string,
  change: Pick<WebhookEndpointsTable, 'secret' | 'previous_secret' | 'previous_secret_expires_at' | 'updated_at'>,
): Promise<void> {
  await db.updateTable('webhook_endpoints').set(change).where('id', '=', id).execute();
}

/** Changes an endpoint's URL, event types or disabled state (`PATCH /webhook_endpoints/{id}`, `webhook update`). */
export async function updateEndpoint(
  db: Db,
  id: string,
  change: Partial<Pick<WebhookEndpointsTable, 'url' | 'events' | 'disabled_at' | 'disabled_reason' | 'failing_since'>> &
    Pick<WebhookEndpointsTable, 'updated_at'>,
): Promise<void> {
  await db.updateTable('webhook_endpoints').set(change).where('id', '=', id).execute();
}

/** Which of these endpoint ids still exist (the fan-out: a removed endpoint has nothing to deliver to). */
export async function selectExistingEndpointIds(db: Db, ids: readonly string[]): Promise<Set<string>> {
  const rows = await db.selectFrom('webhook_endpoints').select('id').where('id', 'in', ids).execute();
  return new Set(rows.map((row) => row.id));
}

/**
 * The number of the community's active endpoints, as a subquery named `active_endpoints`: the write
 * path asks it in the RETURNING of its version bump (src/write-path/write-community-data.ts), so a
 * write with nobody subscribed learns so without a statement of its own.
 */
export const activeEndpointCount = (eb: ExpressionBuilder<DB, 'communities'>, communityId: string) =>
  eb
    .selectFrom('webhook_endpoints')
    .select((count) => count.fn.countAll<number>().as('n'))
    .where('community_id', '=', communityId)
    .where('disabled_at', 'is', null)
    .as('active_endpoints');

/** How many endpoints are disabled, in every community (the metrics' gauge). */
export const disabledEndpointsGauge = (db: Db) =>
  db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('disabled_at', 'is not', null)
    .executeTakeFirstOrThrow();
