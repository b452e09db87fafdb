import type { WebhookEndpointsTable } from '../../../db/schema.js';
import { toIso } from '../../../shared/clock.js';
import type { WebhookEventType } from '../rules/event-types.js';

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

/** An endpoint row as the API and the CLI show it (never its secret). */
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
