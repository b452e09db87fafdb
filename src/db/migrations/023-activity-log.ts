import { sql } from 'kysely';
import { isPostgres, type MigrationDb } from './migration-support.js';

/*
 * The activity log (docs/activity.md): one row per change of a community, written in the change's
 * transaction, chained per community by SHA-256 (`hash` over `prev_hash` and the record's canonical
 * bytes). `seq` is the record's place in its community's chain (the order of commits); the
 * community's head (its last seq and hash) is one row of activity_chain_heads, which writers
 * update with the insert, so that concurrent writers on PostgreSQL queue on that row for the
 * instant of their commit and never fork the chain. Imported records take seqs below the
 * community's first, so they may be negative.
 *
 * Indexes: the chain's order (the primary key), and one per filter of GET /activities (action,
 * actor, target), each ending in seq so that a filtered page is read newest first from the index.
 * Every index is a page more that each write's commit writes on SQLite (measured: about 8 µs each),
 * so there are no others: `since`/`until` narrow a page read along one of these, an import finds its
 * records by id within the community's primary key. On SQLite both tables are WITHOUT ROWID (the
 * primary key is the table: one B-tree less per write).
 */

export async function up(db: MigrationDb): Promise<void> {
  const postgres = isPostgres(db);
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
    .$call((table) => (postgres ? table : table.modifyEnd(sql`without rowid`)))
    .execute();
  await db.schema.createIndex('activities_action').on('activities').columns(['community_id', 'action', 'seq']).execute();
  await db.schema.createIndex('activities_actor').on('activities').columns(['community_id', 'actor_type', 'actor_id', 'seq']).execute();
  await db.schema.createIndex('activities_target').on('activities').columns(['community_id', 'target_type', 'target_id', 'seq']).execute();

  await db.schema
    .createTable('activity_chain_heads')
    .addColumn('community_id', 'text', (c) => c.primaryKey().references('communities.id').onDelete('cascade'))
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('prev_hash', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .$call((table) => (postgres ? table : table.modifyEnd(sql`without rowid`)))
    .execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropTable('activity_chain_heads').ifExists().execute();
  await db.schema.dropTable('activities').ifExists().execute();
}
