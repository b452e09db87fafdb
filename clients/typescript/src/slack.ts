// The client for a server with WIRE_NAMES=slack: fields spelled slack_user_id, luma_event_id.
import { type AdminClient, type AdminClientOptions, createAdminClient } from './client.js';
import type { paths } from './generated/slack.js';

export type { components, operations, paths } from './generated/slack.js';
export * from './shared.js';

/** A typed client of a server that speaks the hosted product's spelling (WIRE_NAMES=slack). */
export function createClient(options: AdminClientOptions): AdminClient<paths> {
  return createAdminClient<paths>(options);
}
