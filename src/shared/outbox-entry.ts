import type { WebhookEventType } from '../modules/webhooks/rules/event-types.js';

/**
 * A webhook event of a change, as the write path collected it. Its own file so that the write
 * path (src/write-path/outbox.ts) and the webhook module that records it do not import each other.
 */
export interface OutboxEntry {
  type: WebhookEventType;
  /** Renders the resource as the API answers it (called only when some endpoint wants `type`). */
  render: () => unknown | Promise<unknown>;
}
