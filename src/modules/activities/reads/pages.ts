import type { Db } from '../../../db/database.js';
import { validationFailed } from '../../../errors.js';
import { type PageMeta, pageOf } from '../../../schemas/json-text.js';
import { isActivityAction } from '../../../shared/activity.js';
import type { DatabaseDeps } from '../../../shared/service-deps.js';
import { parseTimestamp } from '../../../shared/timestamps.js';
import { type ActivityFilter, countActivities, selectActivityPage, selectSeqBounds } from '../activities.queries.js';
import { type ActivityRecord, activityRecord } from '../activities.records.js';

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

/** A filter's total as last counted, and the seqs the log then spanned. */
interface CountedTotal {
  first: number;
  last: number;
  total: number;
}

const totals = new Map<string, CountedTotal>();
const maxTotals = 10_000;

/**
 * The exact number of records a filter matches, counted once and then kept up to date from the
 * log's ends: records are only ever appended above the last seq (in commit order: the head's lock
 * makes a higher seq visible only after every lower one), so while the first seq stays the total is
 * the one counted plus the matches appended since: a count over an index range that is empty or
 * short, where a count over a million records costs a quarter of a second. After a prune (hourly),
 * or an import that placed records below, the first read counts again.
 */
async function exactTotal(db: Db, communityId: string, filter: ActivityFilter): Promise<number> {
  const bounds = await selectSeqBounds(db, communityId);
  const key = `${communityId} ${JSON.stringify(filter)}`;
  if (bounds === null) {
    totals.delete(key);
    return 0;
  }
  const known = totals.get(key);
  // Appended since: counted over the new seqs alone. Anything else (a prune, an import below, a
  // record gone from the top) changes what was counted: counted again.
  const total =
    known !== undefined && bounds.first === known.first && bounds.last >= known.last
      ? known.total +
        (bounds.last > known.last ? await countActivities(db, communityId, filter, { from: known.last + 1, to: bounds.last }) : 0)
      : await countActivities(db, communityId, filter, { to: bounds.last });
  if (totals.size >= maxTotals && known === undefined) totals.clear();
  totals.set(key, { first: bounds.first, last: bounds.last, total });
  return total;
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
  const total = await exactTotal(database.db, communityId, filter);
  return pageOf(page, perPage, total, rows.map(activityRecord));
}
