import type { Database } from '../db/database.js';
import type { WebhookDeliveryStatus, WebhookEndpointsTable } from '../db/schema.js';
import { ApiError, notFound, validationFailed } from '../errors.js';
import { type Clock, toIso } from '../shared/clock.js';
import { newUuid } from '../shared/ids.js';
import type { DatabaseDeps, StorageDeps } from '../shared/service-deps.js';
import { selectDeliveries, selectEndpoint, selectEndpoints } from './endpoints.queries.js';
import { isWebhookEventType, type WebhookEventType, webhookEventTypes } from './event-types.js';
import { drainWebhookOutbox } from './fan-out.js';
import { newWebhookSecret } from './signing.js';
import { parseWebhookUrl, type Resolver, resolveWebhookTarget, WebhookTargetRefused } from './target-address.js';

/*
 * Webhook endpoints and their deliveries, as the operator's CLI and the integrators' API manage
 * them: one service, so the two can never disagree. Errors are ApiErrors (the CLI prints their message).
 */

export interface EndpointDeps {
  database: Database;
  clock: Clock;
  allowPrivate: boolean;
  /** Name resolution (tests pass their own so refusals are decided without the network). */
  resolver?: Resolver;
}

/** An endpoint as listed: never its secret. */
export interface WebhookEndpointView {
  id: string;
  community_id: string;
  url: string;
  /** The event types sent to it; null is every type. */
  events: WebhookEventType[] | null;
  disabled: boolean;
  disabled_at: string | null;
  disabled_reason: string | null;
  created_at: string;
}

export interface CreatedWebhookEndpoint {
  id: string;
  url: string;
  events: WebhookEventType[] | null;
  /** Shown once: the `whsec_` secret receivers verify signatures with. */
  secret: string;
  created_at: string;
}

const maxEndpointsPerCommunity = 20;

export function endpointView(row: WebhookEndpointsTable): WebhookEndpointView {
  return {
    id: row.id,
    community_id: row.community_id,
    url: row.url,
    events: row.events === null ? null : (JSON.parse(row.events) as WebhookEventType[]),
    disabled: row.disabled_at !== null,
    disabled_at: row.disabled_at === null ? null : toIso(row.disabled_at),
    disabled_reason: row.disabled_reason,
    created_at: toIso(row.created_at),
  };
}

/** Checks the URL (scheme, then every address its host resolves to); answers it normalised. */
export async function checkEndpointUrl(raw: string, allowPrivate: boolean, resolver?: Resolver): Promise<string> {
  try {
    const url = parseWebhookUrl(raw, allowPrivate);
    await resolveWebhookTarget(url, allowPrivate, resolver);
    return url.href;
  } catch (error) {
    if (error instanceof WebhookTargetRefused) throw validationFailed('body.url', error.message);
    throw error;
  }
}

function checkEvents(events: readonly string[] | undefined): WebhookEventType[] | null {
  if (events === undefined) return null;
  const unique = [...new Set(events.map((event) => event.trim()).filter(Boolean))];
  if (unique.length === 0) throw validationFailed('body.events', `must name at least one of ${webhookEventTypes.join(', ')}`);
  for (const event of unique) {
    if (!isWebhookEventType(event))
      throw validationFailed('body.events', `unknown event type "${event}"; known: ${webhookEventTypes.join(', ')}`);
  }
  return unique as WebhookEventType[];
}

/** Registers an endpoint; the answer holds its secret, shown this once. */
export async function createWebhookEndpoint(
  deps: EndpointDeps,
  communityId: string,
  input: { url: string; events?: readonly string[] },
): Promise<CreatedWebhookEndpoint> {
  const events = checkEvents(input.events);
  const url = await checkEndpointUrl(input.url, deps.allowPrivate, deps.resolver);
  const { database } = deps;
  const community = await database.db.selectFrom('communities').select('id').where('id', '=', communityId).executeTakeFirst();
  if (!community) throw notFound('Community');
  const existing = await selectEndpoints(database.db, communityId);
  if (existing.length >= maxEndpointsPerCommunity)
    throw validationFailed('body.url', `a community may have at most ${maxEndpointsPerCommunity} webhook endpoints; remove one first`);
  const now = deps.clock.now();
  const row: WebhookEndpointsTable = {
    id: newUuid(),
    community_id: communityId,
    url,
    events: events === null ? null : JSON.stringify(events),
    secret: newWebhookSecret(),
    previous_secret: null,
    previous_secret_expires_at: null,
    disabled_at: null,
    disabled_reason: null,
    failing_since: null,
    created_at: now,
    updated_at: now,
  };
  await database.db.insertInto('webhook_endpoints').values(row).execute();
  return { id: row.id, url, events, secret: row.secret, created_at: toIso(now) };
}

/** A community's endpoints, with their disabled state and reason. */
export async function listWebhookEndpoints({ database }: DatabaseDeps, communityId: string): Promise<WebhookEndpointView[]> {
  return (await selectEndpoints(database.db, communityId)).map(endpointView);
}

/** Removes an endpoint and its deliveries (within `communityId` when given). */
export async function removeWebhookEndpoint(
  { database }: DatabaseDeps,
  id: string,
  communityId: string | null,
): Promise<WebhookEndpointView> {
  const row = await selectEndpoint(database.db, id, communityId);
  if (!row) throw notFound('Webhook endpoint');
  // Its deliveries go with it (foreign key, on delete cascade).
  await database.db.deleteFrom('webhook_endpoints').where('id', '=', id).execute();
  return endpointView(row);
}

/** A new secret; the one it replaces keeps signing (a second signature) until the grace ends. */
export async function rotateWebhookSecret(
  deps: StorageDeps,
  id: string,
  graceMs: number,
): Promise<{ id: string; secret: string; previous_secret_expires_at: string | null }> {
  const row = await selectEndpoint(deps.database.db, id, null);
  if (!row) throw notFound('Webhook endpoint');
  const now = deps.clock.now();
  const secret = newWebhookSecret();
  const expires = graceMs > 0 ? now + graceMs : null;
  await deps.database.db
    .updateTable('webhook_endpoints')
    .set({ secret, previous_secret: expires === null ? null : row.secret, previous_secret_expires_at: expires, updated_at: now })
    .where('id', '=', id)
    .execute();
  return { id, secret, previous_secret_expires_at: expires === null ? null : toIso(expires) };
}

export interface WebhookDeliveryView {
  id: string;
  endpoint_id: string;
  webhook_id: string;
  type: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  next_attempt_at: string | null;
  last_response_status: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
}

const deliveryStatuses: readonly WebhookDeliveryStatus[] = ['pending', 'delivered', 'failed'];

/** An endpoint's latest deliveries (newest first), optionally of one status. */
export async function listWebhookDeliveries(
  { database }: DatabaseDeps,
  endpointId: string,
  status: string | null,
  limit = 100,
): Promise<WebhookDeliveryView[]> {
  if (status !== null && !(deliveryStatuses as readonly string[]).includes(status))
    throw validationFailed('status', `must be one of ${deliveryStatuses.join(', ')}`);
  if (!(await selectEndpoint(database.db, endpointId, null))) throw notFound('Webhook endpoint');
  // Changes not yet fanned out by a worker (or made while no server runs) are listed too.
  await drainWebhookOutbox(database);
  const rows = await selectDeliveries(database.db, endpointId, status as WebhookDeliveryStatus | null, limit);
  return rows.map((row) => ({
    id: row.id,
    endpoint_id: row.endpoint_id,
    webhook_id: row.webhook_id,
    type: row.type,
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: row.status === 'pending' ? toIso(row.next_attempt_at) : null,
    last_response_status: row.last_response_status,
    last_error: row.last_error,
    created_at: toIso(row.created_at),
    delivered_at: row.delivered_at === null ? null : toIso(row.delivered_at),
  }));
}

/**
 * Sends deliveries again from now on, with the same `webhook-id` (receivers deduplicate on it):
 * one by id, or every delivery of an endpoint created at or after `since`. Answers how many.
 */
export async function redeliverWebhooks(
  deps: StorageDeps,
  target: { deliveryId: string } | { endpointId: string; since: number },
): Promise<number> {
  const { db } = deps.database;
  await drainWebhookOutbox(deps.database);
  const endpointId =
    'deliveryId' in target
      ? (await db.selectFrom('webhook_deliveries').select('endpoint_id').where('id', '=', target.deliveryId).executeTakeFirst())
          ?.endpoint_id
      : target.endpointId;
  if (endpointId === undefined) throw notFound('Webhook delivery');
  const endpoint = await selectEndpoint(db, endpointId, null);
  if (!endpoint) throw notFound('Webhook endpoint');
  if (endpoint.disabled_at !== null)
    throw new ApiError('validation_failed', `The endpoint ${endpointId} is disabled (${endpoint.disabled_reason}).`, {
      hint: 'Add the endpoint again (webhook add) once its receiver works, then redeliver there.',
    });
  const now = deps.clock.now();
  let query = db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', attempts: 0, next_attempt_at: now, lease_owner: null, lease_until: null, updated_at: now })
    .where('endpoint_id', '=', endpointId);
  query = 'deliveryId' in target ? query.where('id', '=', target.deliveryId) : query.where('created_at', '>=', target.since);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}
