import type { WebhookDeliveryStatus } from '../../../db/schema.js';
import { toIso } from '../../../shared/clock.js';
import { type DurationMs, epochMillis } from '../../../shared/time.js';
import type { selectAttempts } from '../queries/attempts.js';
import type { selectDelivery } from '../queries/deliveries.js';
import type { WebhookEventType } from '../rules/event-types.js';

/** One attempt of a delivery: when, what the receiver answered (or null), how long it took, the error. */
export interface WebhookAttemptView {
  attempted_at: string;
  status: number | null;
  duration_ms: DurationMs;
  error: string | null;
}

export interface WebhookDeliveryView {
  id: string;
  endpoint_id: string;
  webhook_id: string;
  type: WebhookEventType;
  status: WebhookDeliveryStatus;
  attempts: number;
  next_attempt_at: string | null;
  last_response_status: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
  /** Every attempt still logged, oldest first (attempts made before the log existed are counted, not listed). */
  attempt_log: WebhookAttemptView[];
}

type DeliveryRow = NonNullable<Awaited<ReturnType<typeof selectDelivery>>>;
type AttemptRow = Awaited<ReturnType<typeof selectAttempts>>[number];

/** Delivery rows as the API and the CLI show them, each with its attempts (read for all of them at once). */
export function deliveryViewsOf(rows: readonly DeliveryRow[], attempts: readonly AttemptRow[]): WebhookDeliveryView[] {
  const byDelivery = new Map<string, WebhookAttemptView[]>();
  for (const attempt of attempts) {
    const list = byDelivery.get(attempt.delivery_id) ?? [];
    list.push({
      attempted_at: toIso(epochMillis(Number(attempt.attempted_at))),
      status: attempt.response_status,
      duration_ms: attempt.duration_ms,
      error: attempt.error,
    });
    byDelivery.set(attempt.delivery_id, list);
  }
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
    attempt_log: byDelivery.get(row.id) ?? [],
  }));
}
