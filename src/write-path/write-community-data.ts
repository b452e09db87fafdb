import type { Database, Db, Tx } from '../db/database.js';
import { preparedQuery, registerSqliteTransaction } from '../db/prepared-query.js';
import { recordActivities } from '../modules/activities/commands/record-activities.js';
import { activeEndpointCount } from '../modules/webhooks/queries/endpoints.js';
import type { ActivityInput, ActorDeps } from '../shared/activity.js';
import { type Clock, clockReading } from '../shared/clock.js';
import { enterCommit, type RequestDeadline } from '../shared/request-deadline.js';
import type { EpochMicros } from '../shared/time.js';
import type { WebhookEventType } from '../shared/webhook-event-types.js';
import {
  type ActiveEndpoint,
  type OutboxEntry,
  readActiveEndpoints,
  readActiveEndpointsAtBegin,
  recordOutboxEntries,
  someEndpointWants,
} from './outbox.js';

/**
 * The cached views of a community that a change can make stale. Each has a version column on
 * `communities` that cached answers and counts are keyed by (see the response and count caches).
 */
export type DataView = 'events' | 'posts' | 'members';

/** The version column of each view (read by the cached reads, bumped here). */
export const dataVersionColumn = { events: 'events_version', posts: 'posts_version', members: 'members_version' } as const;

/** What a change of community data is given: its transaction and the means to say what it changed. */
export interface CommunityWrite {
  readonly tx: Tx;
  readonly communityId: string;
  /**
   * The clock's instant at the start of the change (the same for every row it writes), in the
   * unit of stored instants: epoch microseconds (docs/development.md).
   */
  readonly now: EpochMicros;
  /** Says that this change alters what answers of `view` show: its version is bumped once, before commit. */
  touch(view: DataView): void;
  /**
   * Records a webhook event of this change, written to the outbox in the same transaction.
   * `data` renders the resource as the API answers it (a plain object, or the record's JSON text as
   * a JsonText, which is written into the payload as is); it is called before commit, after the
   * change, and only when some endpoint of the community wants `type`, so a write with no
   * subscriber pays nothing for it. It answers undefined when there is nothing to send after all (a
   * calendar event that does not trigger webhooks). A resource that the change deletes is rendered
   * before the delete, when `wanted` says someone wants it, and its `data` returns that rendering.
   */
  emit(type: WebhookEventType, data: () => unknown | Promise<unknown>): void;
  /**
   * Whether some active webhook endpoint of the community wants `type`. A change that must render a
   * resource before deleting it (its `emit` could not render it afterwards) asks this first, so that
   * a delete nobody subscribed to renders nothing. The endpoints are read once per write.
   */
  wanted(type: WebhookEventType): Promise<boolean>;
  /**
   * Records this change in the community's activity log (docs/activity.md): written in the same
   * transaction, last before the commit, with the write's instant and its deps' actor and request
   * context. One call per change; a bulk writer (import, sync run) records its run once.
   */
  record(activity: ActivityInput): void;
}

export interface WriteDeps extends ActorDeps {
  database: Database;
  clock: Clock;
  /** The deadline of the request making the write (routes pass it: src/http/request-deadline.ts), if any. */
  deadline?: RequestDeadline;
}

/**
 * The one way to change a community's data (API routes, import, seed, CLI, chat sync). Runs
 * `change` in one transaction, then, in that same transaction, bumps the versions of the views it
 * touched and writes its outbox entries and activity records: a change is never committed without
 * them, and a change that throws leaves nothing behind.
 */
export async function writeCommunityData<T>(
  deps: WriteDeps,
  communityId: string,
  change: (write: CommunityWrite) => Promise<T>,
): Promise<T> {
  return deps.database.db.transaction().execute(async (tx) => {
    registerSqliteTransaction(deps.database.db, tx);
    const touched = new Set<DataView>();
    const outbox: OutboxEntry[] = [];
    const activities: ActivityInput[] = [];
    // Community data keeps the millisecond; the activity records the same instant to the microsecond.
    const { stored: now, precise: recordedAt } = clockReading(deps.clock);
    // PostgreSQL: read with the transaction's begin, in the same round trip (outbox.ts). SQLite:
    // only if the change asks (wanted), else counted by the version bump at the end.
    let endpoints: readonly ActiveEndpoint[] | undefined =
      deps.database.engine === 'postgres' ? await readActiveEndpointsAtBegin(tx, communityId) : undefined;
    const result = await change({
      tx,
      communityId,
      now,
      touch: (view) => touched.add(view),
      emit: (type, data) => outbox.push({ type, render: data }),
      wanted: async (type) => {
        endpoints ??= await readActiveEndpoints(tx, communityId);
        return someEndpointWants(endpoints, type);
      },
      record: (activity) => activities.push(activity),
    });
    const postgres = deps.database.engine === 'postgres';
    if (endpoints) {
      await bumpVersions(tx, communityId, touched, false);
      // The last statement before the commit: on PostgreSQL its rows go with it, in one message.
      if (outbox.length > 0 && endpoints.length > 0) await recordOutboxEntries(tx, communityId, outbox, now, endpoints, postgres);
      // Held too: the activity records ride with the commit, after the outbox rows.
      if (activities.length > 0)
        await recordActivities(tx, communityId, activities, recordedAt, deps.actor, deps.requestContext, postgres, postgres);
      // A request past its deadline has answered 503: its write must not commit (throws, rolls back).
      enterCommit(deps.deadline);
      return result;
    }
    const activeEndpoints = await bumpVersions(tx, communityId, touched, outbox.length > 0);
    if (outbox.length > 0 && activeEndpoints !== 0) await recordOutboxEntries(tx, communityId, outbox, now, undefined, false);
    if (activities.length > 0)
      await recordActivities(tx, communityId, activities, recordedAt, deps.actor, deps.requestContext, postgres, false);
    enterCommit(deps.deadline);
    return result;
  });
}

/**
 * The version bump of a set of views, compiled once per set, in two forms. The second also answers
 * how many active webhook endpoints the community has: a change that touches a view and emits
 * webhook events, with no endpoint to send them to (the usual case), learns that without a
 * statement of its own. On PostgreSQL every statement is a round trip (docs/performance.md).
 */
const bumps = new Map<string, { alone: ReturnType<typeof bumpOf>; counting: ReturnType<typeof bumpCountingEndpointsOf> }>();

const updateOf = (db: Db | Tx, views: readonly DataView[], communityId: string) =>
  db
    .updateTable('communities')
    .set((eb) => Object.fromEntries(views.map((view) => [dataVersionColumn[view], eb(dataVersionColumn[view], '+', 1)])))
    .where('id', '=', communityId);

const bumpOf = (views: readonly DataView[]) => preparedQuery((db, p: { communityId: string }) => updateOf(db, views, p.communityId));

const bumpCountingEndpointsOf = (views: readonly DataView[]) =>
  preparedQuery((db, p: { communityId: string }) =>
    updateOf(db, views, p.communityId).returning((eb) => activeEndpointCount(eb, p.communityId)),
  );

/** Bumps the touched views' versions; with `countEndpoints`, answers the community's active webhook endpoints (undefined: not known). */
async function bumpVersions(
  tx: Tx,
  communityId: string,
  touched: ReadonlySet<DataView>,
  countEndpoints: boolean,
): Promise<number | undefined> {
  if (touched.size === 0) return undefined;
  const views = [...touched].sort();
  const key = views.join(',');
  let queries = bumps.get(key);
  if (!queries) {
    queries = { alone: bumpOf(views), counting: bumpCountingEndpointsOf(views) };
    bumps.set(key, queries);
  }
  if (!countEndpoints) {
    await queries.alone.execute(tx, { communityId });
    return undefined;
  }
  const row = await queries.counting.first(tx, { communityId });
  return row ? Number(row.active_endpoints) : undefined;
}
