import { CompiledQuery, type Insertable } from 'kysely';
import type { Db, Tx } from '../../../db/database.js';
import { holdUntilNextStatement, sessionStatement, sqlLiteral } from '../../../db/pg-statements.js';
import { PreparedQuery, preparedQuery } from '../../../db/prepared-query.js';
import type { WebhookOutboxTable } from '../../../db/schema.js';
import { isUuid } from '../../../shared/ids.js';

/*
 * The statements of the webhook outbox (record-deliveries.ts writes it in a change's transaction,
 * fan-out.ts moves it into deliveries) and the write's read of the community's active endpoints.
 */

/** An active endpoint as a write sees it: its id and the event types it wants (JSON, null: all). */
export interface ActiveEndpoint {
  id: string;
  events: string | null;
}

// Compiled once, as the insert below: this read is on every emitting write, and a Kysely builder
// costs more than the read (on SQLite it then runs on the transaction's handle, on PostgreSQL as a
// named statement).
const activeEndpoints = preparedQuery((db, p: { communityId: string }) =>
  db.selectFrom('webhook_endpoints').select(['id', 'events']).where('community_id', '=', p.communityId).where('disabled_at', 'is', null),
);

// Compiled once: a Kysely insert builder costs more than the insert itself.
const insertOutboxRow = new PreparedQuery((db, p: Omit<Insertable<WebhookOutboxTable>, 'id'>) => db.insertInto('webhook_outbox').values(p));

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

// On PostgreSQL the outbox row goes with the transaction's commit, in the same message (a held
// session statement, pg-statements.ts): nothing reads its result, and a round trip of its own
// would be most of what an emitting write pays for its webhook.
const executeInsertOutboxRow = sessionStatement(
  'ca_s_insert_webhook_outbox',
  ['text', 'text', 'text', 'text', 'text', 'bigint', 'integer'],
  'insert into "webhook_outbox" ("community_id", "webhook_id", "type", "payload", "endpoint_ids", "created_at", "position") values ($1, $2, $3, $4, $5, $6, $7)',
);

/** Inserts one outbox row; `withCommit` (PostgreSQL): sent with the commit, which must be the next statement. */
export async function insertOutbox(tx: Tx, withCommit: boolean, row: Omit<Insertable<WebhookOutboxTable>, 'id'>): Promise<void> {
  if (!withCommit) {
    await insertOutboxRow.execute(tx, row);
    return;
  }
  const { community_id, webhook_id, type, payload, endpoint_ids, created_at, position } = row;
  const literals = [community_id, webhook_id, type, payload, endpoint_ids, Number(created_at), Number(position)].map(sqlLiteral);
  await tx.executeQuery(CompiledQuery.raw(holdUntilNextStatement(executeInsertOutboxRow(...literals))));
}

/** The oldest outbox rows, at most `limit`. */
export const selectOutboxBatch = (db: Db, limit: number) =>
  db.selectFrom('webhook_outbox').selectAll().orderBy('id').limit(limit).execute();

/** Deletes outbox rows by id (moved into deliveries). */
export async function deleteOutboxRows(db: Db, ids: readonly number[]): Promise<void> {
  await db.deleteFrom('webhook_outbox').where('id', 'in', ids).execute();
}

/** How many outbox rows wait to be fanned out, and the oldest one's created_at (the metrics' gauges). */
export const outboxGauge = (db: Db) =>
  db
    .selectFrom('webhook_outbox')
    .select((eb) => [eb.fn.countAll().as('n'), eb.fn.min('created_at').as('oldest')])
    .executeTakeFirstOrThrow();
