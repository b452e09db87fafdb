import type { Tx } from '../db/database.js';
import { recordWebhookDeliveries, someEndpointWants } from '../modules/webhooks/commands/record-deliveries.js';
import { type ActiveEndpoint, readActiveEndpoints, readActiveEndpointsAtBegin } from '../modules/webhooks/queries/endpoints.js';
import type { OutboxEntry } from '../shared/outbox-entry.js';
import type { EpochMicros } from '../shared/time.js';
import { millisFromMicros } from '../shared/timestamps.js';

export type { ActiveEndpoint, OutboxEntry };
export { readActiveEndpoints, readActiveEndpointsAtBegin, someEndpointWants };

/**
 * Writes the outbox entries of a change in its transaction: one webhook delivery per event and
 * endpoint that wants it (src/modules/webhooks/commands/record-deliveries.ts, docs/webhooks.md). `now` is the
 * change's instant in epoch microseconds (w.now), the unit of stored instants. `withCommit`: the
 * rows may go with the commit (PostgreSQL; the commit must be the transaction's next statement).
 */
export async function recordOutboxEntries(
  tx: Tx,
  communityId: string,
  entries: OutboxEntry[],
  now: EpochMicros,
  endpoints: readonly ActiveEndpoint[] | undefined,
  withCommit: boolean,
): Promise<void> {
  // Deliveries are operational rows scheduled against the clock (epoch ms), not community data.
  await recordWebhookDeliveries(tx, communityId, entries, millisFromMicros(now), endpoints, withCommit);
}
