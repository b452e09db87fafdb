import { validationFailed } from '../errors.js';
import { type PageMeta, pageOf } from '../schemas/json-text.js';
import { isActivityAction } from '../shared/activity.js';
import type { DatabaseDeps } from '../shared/service-deps.js';
import { parseTimestamp } from '../shared/timestamps.js';
import { type ActivityFilter, countActivities, selectActivityPage } from './activities.queries.js';
import { type ActivityRecord, activityRecord } from './activity-records.js';

/** The filters as the API and the CLI take them (texts). */
export interface ActivityQuery {
  action?: string;
  actor_type?: string;
  actor_id?: string;
  target_type?: string;
  target_id?: string;
  since?: string;
  until?: string;
}

/**
 * The texts checked into a filter; a bad one is a 400 (or the CLI's message) naming its parameter,
 * `name(field)` spelling it as the caller knows it (`querystring.since`, `--since`).
 */
export function activityFilter(query: ActivityQuery, name: (field: string) => string): ActivityFilter {
  const filter: ActivityFilter = {};
  if (query.action !== undefined) {
    if (query.action.endsWith('.*')) {
      const prefix = query.action.slice(0, -1);
      if (!/^[a-z_]+\.$/.test(prefix)) throw validationFailed(name('action'), 'must be an action or a family such as calendar_event.*');
      filter.actionPrefix = prefix;
    } else if (isActivityAction(query.action)) filter.action = query.action;
    else throw validationFailed(name('action'), `unknown action "${query.action}"`);
  }
  if (query.actor_type !== undefined) filter.actorType = query.actor_type;
  if (query.actor_id !== undefined) filter.actorId = query.actor_id;
  if (query.target_type !== undefined) filter.targetType = query.target_type;
  if (query.target_id !== undefined) filter.targetId = query.target_id;
  for (const field of ['since', 'until'] as const) {
    const text = query[field];
    if (text === undefined) continue;
    const at = parseTimestamp(text);
    if (at === undefined) throw validationFailed(name(field), 'must be a timestamp such as 2026-01-31T00:00:00Z');
    filter[field] = at;
  }
  return filter;
}

/** A page of the community's log, newest first, with its exact total. */
export async function pageActivities(
  { database }: DatabaseDeps,
  communityId: string,
  filter: ActivityFilter,
  page: number,
  perPage: number,
): Promise<PageMeta & { records: ActivityRecord[] }> {
  const rows = await selectActivityPage(database.db, communityId, filter, perPage, page * perPage);
  const total = await countActivities(database.db, communityId, filter);
  return pageOf(page, perPage, total, rows.map(activityRecord));
}
