import type { Insertable } from 'kysely';
import { selectInBatches } from '../../../db/batches.js';
import type { Db } from '../../../db/database.js';
import type { WebhookDeliveryAttemptsTable } from '../../../db/schema.js';

/* Every statement on webhook_delivery_attempts (the attempt log of deliveries). */

/** Logs one attempt of a delivery. */
export async function insertAttempt(db: Db, row: Insertable<WebhookDeliveryAttemptsTable>): Promise<void> {
  await db.insertInto('webhook_delivery_attempts').values(row).execute();
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
