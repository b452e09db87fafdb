import type { MigrationDb } from './migration-support.js';

/*
 * The attempt log of webhook deliveries (docs/webhooks.md, "Deliveries over the API"): one row per
 * attempt, with the receiver's status, how long it took and the error, kept as long as its delivery
 * (deleted with it by the retention's prune, foreign key on delete cascade).
 */

export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .createTable('webhook_delivery_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('delivery_id', 'text', (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
    .addColumn('attempted_at', 'bigint', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('error', 'text')
    .execute();
  await db.schema
    .createIndex('webhook_delivery_attempts_delivery')
    .on('webhook_delivery_attempts')
    .columns(['delivery_id', 'attempted_at'])
    .execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropTable('webhook_delivery_attempts').ifExists().execute();
}
