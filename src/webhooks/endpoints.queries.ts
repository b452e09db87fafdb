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

/** An endpoint's deliveries, newest first. */
export function selectDeliveries(db: Db, endpointId: string, status: WebhookDeliveryStatus | null, limit: number) {
  let query = db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId);
  if (status !== null) query = query.where('status', '=', status);
  return query.orderBy('created_at', 'desc').orderBy('position', 'desc').limit(limit).execute();
}
