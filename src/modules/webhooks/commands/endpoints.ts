import type { Database } from '../../../db/database.js';
import type { WebhookEndpointsTable } from '../../../db/schema.js';
import { notFound } from '../../../errors.js';
import { type ActorDeps, changedFields } from '../../../shared/activity.js';
import { type Clock, systemClock, toIso } from '../../../shared/clock.js';
import { refuse } from '../../../shared/failures.js';
import { newUuid } from '../../../shared/ids.js';
import type { DatabaseDeps, StorageDeps } from '../../../shared/service-deps.js';
import { addMillis, type DurationMs } from '../../../shared/time.js';
import { writeCommunityData } from '../../../write-path/write-community-data.js';
import { selectCommunity } from '../../communities/communities.queries.js';
import {
  deleteEndpoint,
  insertEndpoint,
  selectEndpoint,
  selectEndpoints,
  updateEndpoint,
  updateEndpointSecrets,
} from '../queries/endpoints.js';
import { endpointView, type WebhookEndpointView } from '../records/endpoints.js';
import { isWebhookEventType, type WebhookEventType, webhookEventTypes } from '../rules/event-types.js';
import { newWebhookSecret } from '../rules/signing.js';
import { parseWebhookUrl, type Resolver, resolveWebhookTarget } from '../rules/target-address.js';

/*
 * Webhook endpoints and their deliveries, as the operator's CLI and the integrators' API manage
 * them: one service, so the two can never disagree. Errors are ApiErrors (the CLI prints their message).
 */

export interface EndpointDeps extends ActorDeps {
  database: Database;
  clock: Clock;
  allowPrivate: boolean;
  /** Name resolution (tests pass their own so refusals are decided without the network). */
  resolver?: Resolver;
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

/** Checks the URL (scheme, then every address its host resolves to); answers it normalised, or refuses it (WebhookTargetRefused, at `url`). */
async function checkEndpointUrl(raw: string, allowPrivate: boolean, resolver?: Resolver): Promise<string> {
  const url = parseWebhookUrl(raw, allowPrivate);
  await resolveWebhookTarget(url, allowPrivate, resolver);
  return url.href;
}

function checkEvents(events: readonly string[] | undefined | null): WebhookEventType[] | null {
  if (events === undefined || events === null) return null;
  const unique = [...new Set(events.map((event) => event.trim()).filter(Boolean))];
  if (unique.length === 0) throw refuse(['events'], 'required', `must name at least one of ${webhookEventTypes.join(', ')}`);
  for (const event of unique) {
    if (!isWebhookEventType(event))
      throw refuse(['events'], 'unknown_value', `unknown event type "${event}"; known: ${webhookEventTypes.join(', ')}`);
  }
  return unique as WebhookEventType[];
}

/** Registers an endpoint; the answer holds its secret, shown this once. */
export async function createWebhookEndpoint(
  ctx: EndpointDeps & { readonly communityId: string },
  input: { url: string; events?: readonly string[] },
): Promise<CreatedWebhookEndpoint> {
  const { communityId } = ctx;
  const events = checkEvents(input.events);
  const url = await checkEndpointUrl(input.url, ctx.allowPrivate, ctx.resolver);
  const { database } = ctx;
  if (!(await selectCommunity(database.db, communityId))) throw notFound('Community');
  const existing = await selectEndpoints(database.db, communityId);
  if (existing.length >= maxEndpointsPerCommunity)
    throw refuse(['url'], 'too_many', `a community may have at most ${maxEndpointsPerCommunity} webhook endpoints; remove one first`);
  const now = ctx.clock.now();
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
  await writeCommunityData(ctx, communityId, async (w) => {
    await insertEndpoint(w.tx, row);
    // Never the secret: the record names the endpoint by its URL.
    w.record({ action: 'webhook_endpoint.created', target: { type: 'webhook_endpoint', id: row.id, name: url }, metadata: { events } });
  });
  return { id: row.id, url, events, secret: row.secret, created_at: toIso(now) };
}

/** A community's endpoints, with their disabled state and reason. */
export async function listWebhookEndpoints({ database }: DatabaseDeps, communityId: string): Promise<WebhookEndpointView[]> {
  return (await selectEndpoints(database.db, communityId)).map(endpointView);
}

/** Removes an endpoint and its deliveries (within `communityId` when given). */
export async function removeWebhookEndpoint(
  ctx: DatabaseDeps & ActorDeps & { clock?: Clock; readonly communityId: string | null },
  id: string,
): Promise<WebhookEndpointView> {
  const { communityId } = ctx;
  const row = await selectEndpoint(ctx.database.db, id, communityId);
  if (!row) throw notFound('Webhook endpoint');
  await writeCommunityData({ ...ctx, clock: ctx.clock ?? systemClock }, row.community_id, async (w) => {
    // Its deliveries go with it (foreign key, on delete cascade).
    await deleteEndpoint(w.tx, id);
    w.record({ action: 'webhook_endpoint.deleted', target: { type: 'webhook_endpoint', id, name: row.url } });
  });
  return endpointView(row);
}

/** What `PATCH /webhook_endpoints/{id}` and `webhook update` may change; an absent field is kept. */
export interface WebhookEndpointChange {
  url?: string;
  /** The event types to send; null is every type (including types added later). */
  events?: readonly string[] | null;
  enabled?: boolean;
}

/** The reason an endpoint disabled by hand is listed with (the worker writes its own reasons). */
const disabledByOperator = 'disabled by an operator';

/**
 * Changes an endpoint (within `communityId` when given: the API; any: the CLI) and answers it as
 * listed now. Disabling stops deliveries at once (the worker fails the pending ones unsent, as for
 * an endpoint it disabled itself); enabling clears the reason and the failing run, whoever disabled
 * it, so the schedule starts afresh. The same values again change nothing.
 */
export async function updateWebhookEndpoint(
  ctx: EndpointDeps & { readonly communityId: string | null },
  { id, change }: { id: string; change: WebhookEndpointChange },
): Promise<WebhookEndpointView> {
  const { communityId } = ctx;
  const events = change.events === undefined ? undefined : checkEvents(change.events);
  const url = change.url === undefined ? undefined : await checkEndpointUrl(change.url, ctx.allowPrivate, ctx.resolver);
  const { db } = ctx.database;
  const row = await selectEndpoint(db, id, communityId);
  if (!row) throw notFound('Webhook endpoint');
  const now = ctx.clock.now();
  const next: Parameters<typeof updateEndpoint>[2] = { updated_at: now };
  if (url !== undefined && url !== row.url) next.url = url;
  if (events !== undefined) {
    const stored = events === null ? null : JSON.stringify(events);
    if (stored !== row.events) next.events = stored;
  }
  if (change.enabled === false && row.disabled_at === null) {
    next.disabled_at = now;
    next.disabled_reason = disabledByOperator;
  } else if (change.enabled === true && row.disabled_at !== null) {
    next.disabled_at = null;
    next.disabled_reason = null;
    next.failing_since = null;
  }
  if (Object.keys(next).length === 1) return endpointView(row);
  const before = endpointView(row);
  const after = endpointView({ ...row, ...next });
  await writeCommunityData(ctx, row.community_id, async (w) => {
    await updateEndpoint(w.tx, id, next);
    // What an integrator changed: never the secret (PATCH cannot change it) nor the worker's bookkeeping.
    w.record({
      action: 'webhook_endpoint.updated',
      target: { type: 'webhook_endpoint', id, name: after.url },
      changes: changedFields(before, after, ['url', 'events', 'disabled']),
    });
  });
  return after;
}

/** A new secret; the one it replaces keeps signing (a second signature) until the grace ends. */
export async function rotateWebhookSecret(
  ctx: StorageDeps,
  { id, graceMs }: { id: string; graceMs: DurationMs },
): Promise<{ id: string; secret: string; previous_secret_expires_at: string | null }> {
  const row = await selectEndpoint(ctx.database.db, id, null);
  if (!row) throw notFound('Webhook endpoint');
  const now = ctx.clock.now();
  const secret = newWebhookSecret();
  const expires = graceMs > 0 ? addMillis(now, graceMs) : null;
  await writeCommunityData(ctx, row.community_id, async (w) => {
    await updateEndpointSecrets(w.tx, id, {
      secret,
      previous_secret: expires === null ? null : row.secret,
      previous_secret_expires_at: expires,
      updated_at: now,
    });
    w.record({
      action: 'webhook_endpoint.secret_rotated',
      target: { type: 'webhook_endpoint', id, name: row.url },
      metadata: { previous_secret_expires_at: expires === null ? null : toIso(expires) },
    });
  });
  return { id, secret, previous_secret_expires_at: expires === null ? null : toIso(expires) };
}
