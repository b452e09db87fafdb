import { selectInBatches } from '../db/batches.js';
import type { Db, Tx } from '../db/database.js';
import type { WebhookDeliveryStatus } from '../db/schema.js';

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
