import { type AdminClient, type paths, unwrap } from '@community-admin/client';
import type { Page } from '../../shared/paged-table.js';

type Query = NonNullable<paths['/admin/v0/activities']['get']['parameters']['query']>;
export type Activity = paths['/admin/v0/activities']['get']['responses'][200]['content']['application/json']['data']['records'][number];
export type ActionFilter = NonNullable<Query['action']>;
export type ActorType = NonNullable<Query['actor_type']>;

/** The filters as the form holds them (empty: no filter); times are instants. */
export interface ActivityFilters {
  action: ActionFilter | '';
  actor_type: ActorType | '';
  actor_id: string;
  target_type: string;
  target_id: string;
  since: string;
  until: string;
}

export const noFilters: ActivityFilters = {
  action: '',
  actor_type: '',
  actor_id: '',
  target_type: '',
  target_id: '',
  since: '',
  until: '',
};

export const actorTypes = ['api_key', 'console', 'cli', 'chat_sync', 'system'] as const satisfies readonly ActorType[];

/** The closed list of actions (the API's), each resource's `x.*` first. */
export const actions = [
  'calendar_event.*',
  'calendar_event.created',
  'calendar_event.updated',
  'calendar_event.deleted',
  'calendar_event.attendees_updated',
  'member.*',
  'member.created',
  'member.updated',
  'member.deactivated',
  'group.*',
  'group.member_added',
  'post.*',
  'post.created',
  'post.updated',
  'feed.*',
  'feed.created',
  'feed.updated',
  'file.*',
  'file.uploaded',
  'award.*',
  'award.created',
  'award.assigned',
  'calendar_feed.*',
  'calendar_feed.created',
  'calendar_feed.revoked',
  'api_key.*',
  'api_key.created',
  'api_key.rotated',
  'api_key.permissions_changed',
  'api_key.revoked',
  'webhook_endpoint.*',
  'webhook_endpoint.created',
  'webhook_endpoint.updated',
  'webhook_endpoint.deleted',
  'webhook_endpoint.secret_rotated',
  'webhook_delivery.*',
  'webhook_delivery.redelivered',
  'import.*',
  'import.completed',
  'chat_sync.*',
  'chat_sync.started',
  'chat_sync.completed',
  'console.*',
  'console.signed_in',
  'console.link_refused',
] as const satisfies readonly ActionFilter[];

// Fails to compile when the API gains an action (or actor type) the lists above do not have.
type Missing = Exclude<ActionFilter, (typeof actions)[number]> | Exclude<ActorType, (typeof actorTypes)[number]>;
const complete: [Missing] extends [never] ? true : Missing = true;
void complete;

export const perPage = 20;

function query(filters: ActivityFilters): Query {
  const q: Query = { page: 0, per_page: perPage };
  if (filters.action) q.action = filters.action;
  if (filters.actor_type) q.actor_type = filters.actor_type;
  if (filters.actor_id.trim()) q.actor_id = filters.actor_id.trim();
  if (filters.target_type.trim()) q.target_type = filters.target_type.trim();
  if (filters.target_id.trim()) q.target_id = filters.target_id.trim();
  if (filters.since) q.since = filters.since;
  if (filters.until) q.until = filters.until;
  return q;
}

/** One page of the log, newest first, with the API's totals. */
export async function listActivities(client: AdminClient<paths>, filters: ActivityFilters, page: number): Promise<Page<Activity>> {
  return unwrap(await client.GET('/admin/v0/activities', { params: { query: { ...query(filters), page } } })).data as Page<Activity>;
}

export type ExportFormat = NonNullable<paths['/admin/v0/activities/export']['get']['parameters']['query']>['format'];

/**
 * The records the filters match as a file, oldest first: the server's export
 * (`GET /admin/v0/activities/export`, the file `community-admin activity export` writes), so that
 * the console defines no column of its own.
 */
export async function exportActivities(client: AdminClient<paths>, filters: ActivityFilters, format: ExportFormat): Promise<Blob> {
  const { page: _page, per_page: _perPage, ...filtered } = query(filters);
  return unwrap(await client.GET('/admin/v0/activities/export', { params: { query: { ...filtered, format } }, parseAs: 'blob' }));
}
