import type { WebhookDeliveryStatus } from '../../../db/schema.js';
import { ApiError, notFound } from '../../../errors.js';
import { type PageMeta, pageOf } from '../../../schemas/json-text.js';
import { toIso } from '../../../shared/clock.js';
import { refuse } from '../../../shared/failures.js';
import type { DatabaseDeps, StorageDeps } from '../../../shared/service-deps.js';
import { type DurationMs, type EpochMillis, epochMillis } from '../../../shared/time.js';
import { writeCommunityData } from '../../../write-path/write-community-data.js';
import { selectAttempts } from '../queries/attempts.js';
import {
  countDeliveries,
  countFailedDeliveriesSince,
  resetDeliveries,
  resetFailedDeliveries,
  selectDeliveries,
  selectDelivery,
} from '../queries/deliveries.js';
import { selectEndpoint } from '../queries/endpoints.js';
import { deliveryViewsOf, type WebhookDeliveryView } from '../records/deliveries.js';
import type { WebhookEventType } from '../rules/event-types.js';
import { drainWebhookOutbox } from './fan-out.js';

/*
 * Deliveries and their attempt log, as the operator's CLI and the integrators' API show them, and
 * redelivery: one service for both (the API scopes everything to the key's community, the CLI does not).
 */

const deliveryStatuses: readonly WebhookDeliveryStatus[] = ['pending', 'delivered', 'failed'];

/** The status filter; refused at `status` when it is none of them. */
function checkStatus(status: string | null): WebhookDeliveryStatus | null {
  if (status !== null && !(deliveryStatuses as readonly string[]).includes(status))
    throw refuse(['status'], 'unknown_value', `must be one of ${deliveryStatuses.join(', ')}`);
  return status as WebhookDeliveryStatus | null;
}

type DeliveryRow = NonNullable<Awaited<ReturnType<typeof selectDelivery>>>;

/** The views of delivery rows, with their attempts read for all of them at once. */
async function deliveryViews({ database }: DatabaseDeps, rows: readonly DeliveryRow[]): Promise<WebhookDeliveryView[]> {
  const attempts = await selectAttempts(
    database.db,
    rows.map((row) => row.id),
  );
  return deliveryViewsOf(rows, attempts);
}

/** The endpoint (of the community when one is given), the outbox fanned out first, or a 404. */
async function requireEndpoint({ database }: DatabaseDeps, endpointId: string, communityId: string | null) {
  const endpoint = await selectEndpoint(database.db, endpointId, communityId);
  if (!endpoint) throw notFound('Webhook endpoint');
  // Changes not yet fanned out by a worker (or made while no server runs) are listed too.
  await drainWebhookOutbox(database);
  return endpoint;
}

/** An endpoint's latest deliveries with their attempts (newest first), optionally of one status: the CLI's list. */
export async function listWebhookDeliveries(
  deps: DatabaseDeps,
  endpointId: string,
  status: string | null,
  limit = 100,
): Promise<WebhookDeliveryView[]> {
  const wanted = checkStatus(status);
  await requireEndpoint(deps, endpointId, null);
  return deliveryViews(deps, await selectDeliveries(deps.database.db, endpointId, wanted, limit));
}

/** One page of a community's endpoint's deliveries with their attempts, newest first (`GET .../deliveries`). */
export async function pageWebhookDeliveries(
  deps: DatabaseDeps,
  communityId: string,
  endpointId: string,
  query: { status?: string; page: number; per_page: number },
): Promise<PageMeta & { records: WebhookDeliveryView[] }> {
  const wanted = checkStatus(query.status ?? null);
  await requireEndpoint(deps, endpointId, communityId);
  const { db } = deps.database;
  const rows = await selectDeliveries(db, endpointId, wanted, query.per_page, query.page * query.per_page);
  const total = await countDeliveries(db, endpointId, wanted);
  return pageOf(query.page, query.per_page, total, await deliveryViews(deps, rows));
}

/**
 * Sends deliveries again from now on, with the same `webhook-id` (receivers deduplicate on it):
 * one by id, or every delivery of an endpoint created at or after `since`, within `communityId`
 * when given (the API). Answers how many.
 */
export async function redeliverWebhooks(
  ctx: StorageDeps & { readonly communityId?: string | null },
  target: { deliveryId: string } | { endpointId: string; since: EpochMillis },
): Promise<number> {
  const communityId = ctx.communityId ?? null;
  const { db } = ctx.database;
  await drainWebhookOutbox(ctx.database);
  const endpointId = 'deliveryId' in target ? (await selectDelivery(db, target.deliveryId, communityId))?.endpoint_id : target.endpointId;
  if (endpointId === undefined) throw notFound('Webhook delivery');
  const endpoint = await selectEndpoint(db, endpointId, communityId);
  if (!endpoint) throw notFound('Webhook endpoint');
  refuseDisabled(endpoint);
  const now = ctx.clock.now();
  return writeCommunityData(ctx, endpoint.community_id, async (w) => {
    const count = await resetDeliveries(
      w.tx,
      endpointId,
      'deliveryId' in target ? { id: target.deliveryId } : { since: target.since },
      now,
    );
    w.record({
      action: 'webhook_delivery.redelivered',
      target:
        'deliveryId' in target
          ? { type: 'webhook_delivery', id: target.deliveryId, name: null }
          : { type: 'webhook_endpoint', id: endpointId, name: endpoint.url },
      metadata: { endpoint_id: endpointId, deliveries: count, ...('since' in target ? { since: toIso(target.since) } : {}) },
    });
    return count;
  });
}

function refuseDisabled(endpoint: { id: string; disabled_at: unknown; disabled_reason: string | null }): void {
  if (endpoint.disabled_at !== null)
    throw new ApiError('webhook_endpoint_disabled', `The endpoint ${endpoint.id} is disabled (${endpoint.disabled_reason}).`, {
      hint: 'Enable it again once its receiver works (PATCH /webhook_endpoints/{id} with {"enabled": true}, or webhook update ID --enable), then redeliver.',
    });
}

/** The most failed deliveries one call of redeliverFailedWebhooks queues: the rest are answered as `remaining`. */
export const redeliverFailedCap = 1000;

/** What `POST /webhook_endpoints/{id}/redeliver_failed` answers. */
export interface RedeliverFailedResult {
  endpoint_id: string;
  since: string;
  /** Failed deliveries made pending again by this call (oldest first, at most the cap). */
  queued: number;
  /** Failed deliveries since `since` still failed after this call: call again to queue them. */
  remaining: number;
}

/**
 * Queues every failed delivery of an endpoint created at or after `since` (within `communityId`
 * when given), oldest first, at most `redeliverFailedCap` per call in one statement: a call queues
 * all of its batch or none. The same webhook-id is sent again, from now, with a fresh schedule.
 */
export async function redeliverFailedWebhooks(
  ctx: StorageDeps & { readonly communityId: string | null },
  { endpointId, since }: { endpointId: string; since: EpochMillis },
): Promise<RedeliverFailedResult> {
  const { communityId } = ctx;
  const { db } = ctx.database;
  await drainWebhookOutbox(ctx.database);
  const endpoint = await selectEndpoint(db, endpointId, communityId);
  if (!endpoint) throw notFound('Webhook endpoint');
  refuseDisabled(endpoint);
  const now = ctx.clock.now();
  const queued = await writeCommunityData(ctx, endpoint.community_id, async (w) => {
    const count = await resetFailedDeliveries(w.tx, endpointId, since, redeliverFailedCap, now);
    // One record per call, with its count, as redeliverWebhooks does.
    w.record({
      action: 'webhook_delivery.redelivered',
      target: { type: 'webhook_endpoint', id: endpointId, name: endpoint.url },
      metadata: { endpoint_id: endpointId, deliveries: count, since: toIso(since), failed_only: true },
    });
    return count;
  });
  const remaining = await countFailedDeliveriesSince(db, endpointId, since);
  return { endpoint_id: endpointId, since: toIso(since), queued, remaining };
}

/** Redelivers one delivery of the community (`POST /webhook_deliveries/{id}/redeliver`) and answers it as listed now. */
export async function redeliverWebhookDelivery(
  ctx: StorageDeps & { readonly communityId: string },
  deliveryId: string,
): Promise<WebhookDeliveryView> {
  const { communityId } = ctx;
  await redeliverWebhooks(ctx, { deliveryId });
  const row = await selectDelivery(ctx.database.db, deliveryId, communityId);
  if (!row) throw notFound('Webhook delivery');
  const [view] = await deliveryViews(ctx, [row]);
  if (!view) throw notFound('Webhook delivery');
  return view;
}
