import { isPostgres, type MigrationDb } from './migration-support.js';

/*
 * The webhook outbox proper (docs/webhooks.md, "Cost on writes"): the change's transaction writes one
 * row per webhook event here, in a table with no secondary index, and the delivery worker fans each
 * row out to one webhook_deliveries row per endpoint afterwards. A delivery row costs five b-tree
 * pages (the table and four indexes) in the write's commit; an outbox row costs one, the last page
 * of the table, which consecutive writes share.
 */

export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .createTable('webhook_outbox')
    // Insertion order (SQLite: the rowid; PostgreSQL: an identity), so no index but the key.
    .addColumn('id', isPostgres(db) ? 'bigint' : 'integer', (c) =>
      isPostgres(db) ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey(),
    )
    .addColumn('community_id', 'text', (c) => c.notNull())
    .addColumn('webhook_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    // JSON array of the ids of the endpoints that wanted the event when the change was made.
    .addColumn('endpoint_ids', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropTable('webhook_outbox').ifExists().execute();
}
