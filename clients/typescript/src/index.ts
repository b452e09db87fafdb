// The client for a server with WIRE_NAMES=chat (the default): fields spelled chat_user_id, partner_event_id.
// A server with WIRE_NAMES=slack: import from '@community-admin/client/slack'.
import { type AdminClient, type AdminClientOptions, createAdminClient } from './client.js';
import type { paths } from './generated/chat.js';

export type { components, operations, paths } from './generated/chat.js';
export * from './shared.js';

/** A typed client of a server that speaks the spec's spelling (WIRE_NAMES=chat). */
export function createClient(options: AdminClientOptions): AdminClient<paths> {
  return createAdminClient<paths>(options);
}
