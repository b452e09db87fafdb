import type { Database } from '../../../db/database.js';
import { ApiError, notFound } from '../../../errors.js';
import type { Clock } from '../../../shared/clock.js';
import { toIso } from '../../../shared/clock.js';
import { refuse } from '../../../shared/failures.js';
import type { DurationMs } from '../../../shared/time.js';
import { slackKeysInJson } from '../../../wire-names/json-text-keys.js';
import type { WireNames } from '../../../wire-names/wire-names.js';
import { selectEndpoint } from '../queries/endpoints.js';
import { sampleEventData } from '../records/sample-events.js';
import { isWebhookEventType, type WebhookEventType, webhookEventTypes } from '../rules/event-types.js';
import { signingSecrets } from '../rules/signing.js';
import type { Resolver } from '../rules/target-address.js';
import { sendSignedWebhook } from '../worker/post-webhook.js';
import { newWebhookId } from './record-deliveries.js';

export interface TestSendDeps {
  database: Database;
  clock: Clock;
  allowPrivate: boolean;
  timeoutMs: DurationMs;
  wireNames?: WireNames;
  resolver?: Resolver;
}

/** What a test send got: the receiver's answer, or the error that stood in its way. */
export interface WebhookTestResult {
  endpoint_id: string;
  webhook_id: string;
  event_type: WebhookEventType;
  /** True when the receiver answered 2xx. */
  delivered: boolean;
  status: number | null;
  duration_ms: DurationMs;
  /** The first KiB of the receiver's answer ("" when it sent none or there was none). */
  body: string;
  error: string | null;
}

/**
 * Sends a signed example event of `eventType` to an endpoint now (docs/webhooks.md, "Test sends"),
 * under its secrets, with the target rules of every delivery, and answers what the receiver
 * answered. Nothing is stored: a test send is not an event of the community and is not retried.
 * An endpoint of another community (when one is given) is a 404; a disabled one is refused.
 */
export async function sendTestWebhook(
  ctx: TestSendDeps & { readonly communityId: string | null },
  { endpointId, eventType }: { endpointId: string; eventType: string },
): Promise<WebhookTestResult> {
  const { communityId } = ctx;
  if (!isWebhookEventType(eventType)) throw refuse(['event_type'], 'unknown_value', `must be one of ${webhookEventTypes.join(', ')}`);
  const endpoint = await selectEndpoint(ctx.database.db, endpointId, communityId);
  if (!endpoint) throw notFound('Webhook endpoint');
  if (endpoint.disabled_at !== null)
    throw new ApiError('webhook_endpoint_disabled', `The endpoint ${endpointId} is disabled (${endpoint.disabled_reason}).`, {
      hint: 'Enable it again (PATCH /webhook_endpoints/{id} with {"enabled": true}, or webhook update ID --enable), then test it.',
    });
  const sentAt = ctx.clock.now();
  const text = JSON.stringify({ type: eventType, timestamp: toIso(sentAt), data: sampleEventData(eventType) });
  const body = ctx.wireNames === 'slack' ? slackKeysInJson(text) : text;
  const secrets = signingSecrets(endpoint, sentAt);
  const webhookId = newWebhookId();
  const result = await sendSignedWebhook({ url: endpoint.url, secrets, webhookId, body, sentAt }, ctx);
  return {
    endpoint_id: endpoint.id,
    webhook_id: webhookId,
    event_type: eventType,
    delivered: result.status !== null && result.status >= 200 && result.status < 300,
    status: result.status,
    duration_ms: result.durationMs,
    body: result.body,
    error: result.error,
  };
}
