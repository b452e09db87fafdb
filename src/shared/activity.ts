/*
 * The activity log's vocabulary (docs/activity.md), shared by the write path that records, the
 * commands that say what they changed, and the readers. A closed list, like the webhook event types:
 * the OpenAPI document enumerates it from here.
 */

/** Every action a record can name. */
export const activityActions = [
  'calendar_event.created',
  'calendar_event.updated',
  'calendar_event.deleted',
  'calendar_event.attendees_updated',
  'member.created',
  'member.updated',
  'member.deactivated',
  'group.member_added',
  'post.created',
  'post.updated',
  'feed.created',
  'feed.updated',
  'file.uploaded',
  'award.created',
  'award.assigned',
  'calendar_feed.created',
  'calendar_feed.revoked',
  'api_key.created',
  'api_key.rotated',
  'api_key.permissions_changed',
  'api_key.revoked',
  'webhook_endpoint.created',
  'webhook_endpoint.updated',
  'webhook_endpoint.deleted',
  'webhook_endpoint.secret_rotated',
  'webhook_delivery.redelivered',
  'import.completed',
  'chat_sync.started',
  'chat_sync.completed',
  'console.signed_in',
  'console.link_refused',
] as const;
export type ActivityAction = (typeof activityActions)[number];

export const isActivityAction = (value: string): value is ActivityAction => (activityActions as readonly string[]).includes(value);

/** Who can act: an API key, a console session, the operator's CLI, the Slack sync, the server itself. */
export const actorTypes = ['api_key', 'console', 'cli', 'chat_sync', 'system'] as const;
export type ActorType = (typeof actorTypes)[number];

/** Who made a change. `cli`: id null, label the operating-system user; `system`: the worker's name as label. */
export interface Actor {
  type: ActorType;
  id: string | null;
  label: string | null;
}

/** Where an API request came from (null for writes outside a request: CLI, workers). */
export interface RequestContext {
  request_id: string;
  ip: string | null;
  user_agent: string | null;
}

/** What a change's record says beyond who and when: the command that made the change fills it. */
export interface ActivityInput {
  action: ActivityAction;
  target: { type: string; id: string | null; name: string | null };
  /** `field: [before, after]`, for `*.updated` and `api_key.permissions_changed`; never secrets. */
  changes?: Record<string, readonly [unknown, unknown]> | null;
  /** The other party (the member added, the recipient) and counts (import, sync). */
  metadata?: Record<string, unknown> | null;
  /**
   * Who acts, when the write itself makes the actor (a console sign-in's new session, whose key id
   * exists only inside the write); otherwise the deps' actor.
   */
  actor?: Actor;
}

/** The actor of writes that name none: the server itself (workers). */
export const systemActor = (label: string): Actor => ({ type: 'system', id: null, label });

/** Who acts for a command run (the write path records it with each change). */
export interface ActorDeps {
  /** Absent: the server itself (`system`). */
  actor?: Actor;
  /** The API request that made the change, if any. */
  requestContext?: RequestContext | null;
}

/**
 * The fields of `changes` that differ between two records: `[before, after]` per field named,
 * compared as JSON (a field the change left alone is not listed). Null when nothing differs.
 */
export function changedFields<R extends object>(before: R, after: R, fields: readonly string[]): Record<string, [unknown, unknown]> | null {
  const changes: Record<string, [unknown, unknown]> = {};
  for (const field of fields) {
    const a = (before as Record<string, unknown>)[field] ?? null;
    const b = (after as Record<string, unknown>)[field] ?? null;
    if (JSON.stringify(a) !== JSON.stringify(b)) changes[field] = [a, b];
  }
  return Object.keys(changes).length === 0 ? null : changes;
}
