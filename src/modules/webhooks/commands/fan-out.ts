import type { Insertable } from 'kysely';
import type { Database } from '../../../db/database.js';
import type { WebhookDeliveriesTable } from '../../../db/schema.js';
import { newUuid } from '../../../shared/ids.js';
import { insertDeliveries } from '../queries/deliveries.js';
import { selectExistingEndpointIds } from '../queries/endpoints.js';
import { deleteOutboxRows, selectOutboxBatch } from '../queries/outbox.js';

/** Outbox rows moved per statement pair: enough to drain a burst in a few ticks, small enough to stay short. */
const rowsPerFanOut = 500;

/**
 * Moves the webhook outbox's rows into deliveries, one per endpoint each row names (those that still
 * exist), then deletes the rows; answers how many rows it moved. Written in the change's transaction,
 * an outbox row costs the write one page; the deliveries' five (table and indexes) are paid here, a
 * batch at a time, outside any request.
 *
 * Two statements, not a transaction, and safe to run anywhere at once (every worker tick, every
 * instance, the CLI before it lists deliveries): a delivery is unique per (endpoint, webhook-id), so
 * a row moved twice, by two instances or after a crash between the insert and the delete, still
 * makes one delivery per endpoint.
 */
async function fanOutWebhookOutbox(database: Database): Promise<number> {
  const { db } = database;
  const entries = await selectOutboxBatch(db, rowsPerFanOut);
  if (entries.length === 0) return 0;
  const named = new Set(entries.flatMap((entry) => JSON.parse(entry.endpoint_ids) as string[]));
  // An endpoint removed since the change has nothing left to deliver to (its deliveries went with it).
  const existing = await selectExistingEndpointIds(db, [...named]);
  const deliveries: Insertable<WebhookDeliveriesTable>[] = [];
  for (const entry of entries) {
    for (const endpointId of JSON.parse(entry.endpoint_ids) as string[]) {
      if (!existing.has(endpointId)) continue;
      deliveries.push({
        id: newUuid(),
        community_id: entry.community_id,
        endpoint_id: endpointId,
        webhook_id: entry.webhook_id,
        type: entry.type,
        payload: entry.payload,
        status: 'pending',
        attempts: 0,
        next_attempt_at: entry.created_at,
        lease_owner: null,
        lease_until: null,
        last_response_status: null,
        last_error: null,
        created_at: entry.created_at,
        position: entry.position,
        delivered_at: null,
        updated_at: entry.created_at,
      });
    }
  }
  await insertDeliveries(db, deliveries);
  await deleteOutboxRows(
    db,
    entries.map((entry) => entry.id),
  );
  return entries.length;
}

/** Fans out until the outbox is empty (rows written meanwhile may remain); answers how many rows it moved. */
export async function drainWebhookOutbox(database: Database): Promise<number> {
  let moved = 0;
  for (;;) {
    const batch = await fanOutWebhookOutbox(database);
    moved += batch;
    if (batch < rowsPerFanOut) return moved;
  }
}
