import type { MigrationDb } from './migration-support.js';

/*
 * Keys with permissions, expiry and rotation. `permissions` is `all` (every permission, including
 * ones added later: what existing keys and the first-start key hold) or a comma-separated list.
 * A rotation moves the current hash to `previous_key_hash`, which authenticates until
 * `previous_valid_until`; it is looked up by its own unique index.
 */

export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .alterTable('api_keys')
    .addColumn('permissions', 'text', (c) => c.notNull().defaultTo('all'))
    .execute();
  await db.schema.alterTable('api_keys').addColumn('expires_at', 'bigint').execute();
  await db.schema.alterTable('api_keys').addColumn('previous_key_hash', 'text').execute();
  await db.schema.alterTable('api_keys').addColumn('previous_valid_until', 'bigint').execute();
  await db.schema.createIndex('api_keys_previous_hash').unique().on('api_keys').column('previous_key_hash').execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropIndex('api_keys_previous_hash').execute();
  for (const column of ['previous_valid_until', 'previous_key_hash', 'expires_at', 'permissions']) {
    await db.schema.alterTable('api_keys').dropColumn(column).execute();
  }
}
