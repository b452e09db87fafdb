import type { MigrationDb } from './migration-support.js';

/*
 * Chat sync (Slack): the bot connection of a community (found by team id when events arrive), the
 * backfill's checkpoints, and the queue of Events API deliveries stored before they are acknowledged.
 */

export async function up(db: MigrationDb): Promise<void> {
  // A user deleted from the workspace keeps their profile (posts still name them), marked here.
  await db.schema
    .alterTable('profiles')
    .addColumn('chat_deleted', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('chat_sync_connections')
    .addColumn('community_id', 'text', (c) => c.primaryKey().references('communities.id').onDelete('cascade'))
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('team_url', 'text', (c) => c.notNull())
    .addColumn('api_app_id', 'text')
    .addColumn('bot_user_id', 'text')
    // Sealed with SECRETS_KEY when it is set (src/shared/secret-box.ts).
    .addColumn('bot_token', 'text', (c) => c.notNull())
    .addColumn('signing_secret', 'text', (c) => c.notNull())
    .addColumn('connected_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('chat_sync_connections_team').on('chat_sync_connections').column('team_id').unique().execute();

  await db.schema
    .createTable('chat_sync_checkpoints')
    .addColumn('community_id', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('cursor', 'text', (c) => c.notNull())
    .addColumn('done', 'integer', (c) => c.notNull())
    .addColumn('items', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('chat_sync_checkpoints_pk', ['community_id', 'scope'])
    .execute();

  await db.schema
    .createTable('chat_event_queue')
    .addColumn('community_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('lease_until', 'bigint', (c) => c.notNull())
    .addColumn('applied_at', 'bigint')
    .addColumn('last_error', 'text')
    .addPrimaryKeyConstraint('chat_event_queue_pk', ['community_id', 'event_id'])
    .execute();
  await db.schema
    .createIndex('chat_event_queue_pending')
    .on('chat_event_queue')
    .columns(['applied_at', 'lease_until', 'received_at'])
    .execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.alterTable('profiles').dropColumn('chat_deleted').execute();
  await db.schema.dropTable('chat_event_queue').execute();
  await db.schema.dropTable('chat_sync_checkpoints').execute();
  await db.schema.dropTable('chat_sync_connections').execute();
}
