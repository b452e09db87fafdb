import { CompiledQuery, type ExpressionBuilder } from 'kysely';
import type { Database, Db, Tx } from '../../../db/database.js';
import { sessionStatement } from '../../../db/pg-statements.js';
import { preparedQuery } from '../../../db/prepared-query.js';
import type { DB, WebhookEndpointsTable } from '../../../db/schema.js';
import { isUuid } from '../../../shared/ids.js';
import type { EpochMillis } from '../../../shared/time.js';

/* Every statement on webhook_endpoints. */

/** A community's endpoints, oldest first. */
export const selectEndpoints = (db: Db | Tx, communityId: string) =>
  db.selectFrom('webhook_endpoints').selectAll().where('community_id', '=', communityId).orderBy('created_at').orderBy('id').execute();

/** One endpoint by id, within a community when one is given (the API), else any (the operator's CLI). */
export function selectEndpoint(db: Db | Tx, id: string, communityId: string | null) {
  let query = db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id);
  if (communityId !== null) query = query.where('community_id', '=', communityId);
  return query.executeTakeFirst();
}

/** Registers an endpoint. */
export async function insertEndpoint(db: Db, row: WebhookEndpointsTable): Promise<void> {
  await db.insertInto('webhook_endpoints').values(row).execute();
}

/** Removes an endpoint; its deliveries go with it (foreign key, on delete cascade). */
export async function deleteEndpoint(db: Db, id: string): Promise<void> {
  await db.deleteFrom('webhook_endpoints').where('id', '=', id).execute();
}

/** Sets an endpoint's signing secrets (the one it replaces, if any, and until when it keeps signing). */
export async function updateEndpointSecrets(
  db: Db,
  id: string,
  change: Pick<WebhookEndpointsTable, 'secret' | 'previous_secret' | 'previous_secret_expires_at' | 'updated_at'>,
): Promise<void> {
  await db.updateTable('webhook_endpoints').set(change).where('id', '=', id).execute();
}

/** Changes an endpoint's URL, event types or disabled state (`PATCH /webhook_endpoints/{id}`, `webhook update`). */
export async function updateEndpoint(
  db: Db,
  id: string,
  change: Partial<Pick<WebhookEndpointsTable, 'url' | 'events' | 'disabled_at' | 'disabled_reason' | 'failing_since'>> &
    Pick<WebhookEndpointsTable, 'updated_at'>,
): Promise<void> {
  await db.updateTable('webhook_endpoints').set(change).where('id', '=', id).execute();
}

/** Which of these endpoint ids still exist (the fan-out: a removed endpoint has nothing to deliver to). */
export async function selectExistingEndpointIds(db: Db, ids: readonly string[]): Promise<Set<string>> {
  const rows = await db.selectFrom('webhook_endpoints').select('id').where('id', 'in', ids).execute();
  return new Set(rows.map((row) => row.id));
}

/**
 * The number of the community's active endpoints, as a subquery named `active_endpoints`: the write
 * path asks it in the RETURNING of its version bump (src/write-path/write-community-data.ts), so a
 * write with nobody subscribed learns so without a statement of its own.
 */
export const activeEndpointCount = (eb: ExpressionBuilder<DB, 'communities'>, communityId: string) =>
  eb
    .selectFrom('webhook_endpoints')
    .select((count) => count.fn.countAll<number>().as('n'))
    .where('community_id', '=', communityId)
    .where('disabled_at', 'is', null)
    .as('active_endpoints');

/** How many endpoints are disabled, in every community (the metrics' gauge). */
export const disabledEndpointsGauge = (db: Db) =>
  db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('disabled_at', 'is not', null)
    .executeTakeFirstOrThrow();

/**
 * An endpoint's state after one attempt of `delivery` (recordAttempt in queries/deliveries.ts): a
 * delivered attempt ends a failing run, a failed one starts it or, with `disable`, disables it.
 */
export async function noteAttemptOnEndpoint(
  { db }: Database,
  delivery: { endpoint_id: string; failing_since: EpochMillis | null },
  { delivered, disable, now }: { delivered: boolean; disable: string | null; now: EpochMillis },
): Promise<void> {
  const endpoint = db.updateTable('webhook_endpoints').where('id', '=', delivery.endpoint_id);
  if (delivered) {
    if (delivery.failing_since !== null) await endpoint.set({ failing_since: null }).execute();
  } else if (disable !== null) {
    await endpoint.set({ disabled_at: now, disabled_reason: disable, updated_at: now }).where('disabled_at', 'is', null).execute();
  } else if (delivery.failing_since === null) {
    await endpoint.set({ failing_since: now }).where('failing_since', 'is', null).execute();
  }
}

/** An active endpoint as a write sees it: its id and the event types it wants (JSON, null: all). */
export interface ActiveEndpoint {
  id: string;
  events: string | null;
}

// Compiled once, as the outbox insert (queries/outbox.ts): this read is on every emitting write, and a Kysely builder
// costs more than the read (on SQLite it then runs on the transaction's handle, on PostgreSQL as a
// named statement).
const activeEndpoints = preparedQuery((db, p: { communityId: string }) =>
  db.selectFrom('webhook_endpoints').select(['id', 'events']).where('community_id', '=', p.communityId).where('disabled_at', 'is', null),
);

/** The community's active endpoints, read in the write's transaction. */
export const readActiveEndpoints = (tx: Tx, communityId: string): Promise<ActiveEndpoint[]> => activeEndpoints.all(tx, { communityId });

/**
 * On PostgreSQL, the community's active endpoints read as the first statement of a write's
 * transaction: a text without parameters (a session statement executed with the id inlined), which
 * the connection sends in one message with the transaction's `begin` (src/db/pg-statements.ts), so
 * that knowing them costs a write no round trip of its own. Community ids are UUIDs, inlined only
 * once checked to be one; any other id is read with a parameter.
 */
export async function readActiveEndpointsAtBegin(tx: Tx, communityId: string): Promise<ActiveEndpoint[]> {
  if (!isUuid(communityId)) return readActiveEndpoints(tx, communityId);
  // Already SQL: handed to the transaction's connection as is, with nothing to compile.
  return (await tx.executeQuery<ActiveEndpoint>(CompiledQuery.raw(executeActiveEndpoints(`'${communityId}'`)))).rows;
}

// A session statement (pg-statements.ts): a literal SELECT here would be planned on every write.
const executeActiveEndpoints = sessionStatement(
  'ca_s_active_webhook_endpoints',
  ['text'],
  'select "id", "events" from "webhook_endpoints" where "community_id" = $1 and "disabled_at" is null',
);
