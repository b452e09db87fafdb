import type { MigrationDb } from './migration-support.js';

/*
 * The activity log (docs/activity.md): one row per change of a community, written in the change's
 * transaction, chained per community by SHA-256 (`hash` over `prev_hash` and the record's canonical
 * bytes). `seq` is the record's place in its community's chain (the order of commits); the
 * community's head (its last seq and hash) is one row of activity_chain_heads, which writers
 * update with the insert, so that concurrent writers on PostgreSQL queue on that row for the
 * instant of their commit and never fork the chain. Imported records take seqs below the
 * community's first, so they may be negative.
 *
 * Indexes: the chain's order (the primary key), and one per filter of GET /activities, each
 * ending in seq so that a filtered page is read newest first from the index.
 */

export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .createTable('activities')
    .addColumn('community_id', 'text', (c) => c.notNull().references('communities.id').onDelete('cascade'))
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'bigint', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('actor_label', 'text')
    .addColumn('target_type', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text')
    .addColumn('target_name', 'text')
    .addColumn('context', 'text')
    .addColumn('changes', 'text')
    .addColumn('metadata', 'text')
    .addColumn('prev_hash', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('activities_pk', ['community_id', 'seq'])
    .execute();
  await db.schema.createIndex('activities_id').on('activities').columns(['community_id', 'id']).unique().execute();
  await db.schema.createIndex('activities_action').on('activities').columns(['community_id', 'action', 'seq']).execute();
  await db.schema.createIndex('activities_actor').on('activities').columns(['community_id', 'actor_type', 'actor_id', 'seq']).execute();
  await db.schema.createIndex('activities_target').on('activities').columns(['community_id', 'target_type', 'target_id', 'seq']).execute();
  await db.schema.createIndex('activities_occurred').on('activities').columns(['community_id', 'occurred_at']).execute();

  await db.schema
    .createTable('activity_chain_heads')
    .addColumn('community_id', 'text', (c) => c.primaryKey().references('communities.id').onDelete('cascade'))
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('prev_hash', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropTable('activity_chain_heads').ifExists().execute();
  await db.schema.dropTable('activities').ifExists().execute();
}
