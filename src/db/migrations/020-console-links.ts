import type { MigrationDb } from './migration-support.js';

/*
 * The operator's console sign-in (docs/console.md). `console_links` holds the one-time tokens of
 * `community-admin console link`, by their SHA-256 only (like API keys): a link works once
 * (`used_at` set by the exchange, conditionally, so of two uses one wins) and until `expires_at`.
 * Instants in epoch milliseconds, like api_keys (an operational table).
 *
 * `api_keys.kind` tells a console session's key (`console`, made by the exchange) from a key made
 * by `key create` (`key`, every key before this migration).
 */

export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .createTable('console_links')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('community_id', 'text', (c) => c.notNull().references('communities.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
  // The prune of old links at each new one reads by expiry.
  await db.schema.createIndex('console_links_expires').on('console_links').column('expires_at').execute();
  await db.schema
    .alterTable('api_keys')
    .addColumn('kind', 'text', (c) => c.notNull().defaultTo('key'))
    .execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('kind').execute();
  await db.schema.dropTable('console_links').execute();
}
