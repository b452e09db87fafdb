import { CompiledQuery, type Insertable } from 'kysely';
import type { Db, Tx } from '../../../db/database.js';
import { holdUntilNextStatement, sessionStatement, sqlLiteral } from '../../../db/pg-statements.js';
import { PreparedQuery } from '../../../db/prepared-query.js';
import type { WebhookOutboxTable } from '../../../db/schema.js';

/*
 * Every statement on webhook_outbox (commands/record-deliveries.ts writes it in a change's
 * transaction, commands/fan-out.ts moves it into deliveries).
 */

// Compiled once: a Kysely insert builder costs more than the insert itself.
const insertOutboxRow = new PreparedQuery((db, p: Omit<Insertable<WebhookOutboxTable>, 'id'>) => db.insertInto('webhook_outbox').values(p));

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
