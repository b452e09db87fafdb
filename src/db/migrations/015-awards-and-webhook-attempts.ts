import type { MigrationDb } from './migration-support.js';

/*
 * Awards (docs/awards.md): the awards an operator defines, who holds which (one row per award and
 * profile: assigning again is not a second award), and the queue of Slack direct messages telling
 * recipients, written in the assignment's transaction and sent by a leased worker.
 *
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

  await db.schema
    .createTable('awards')
    .addColumn('community_id', 'text', (c) => c.notNull().references('communities.id').onDelete('cascade'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('emoji', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('awards_pk', ['community_id', 'id'])
    .addUniqueConstraint('awards_name', ['community_id', 'name'])
    .execute();

  await db.schema
    .createTable('award_assignments')
    .addColumn('community_id', 'text', (c) => c.notNull())
    .addColumn('award_id', 'text', (c) => c.notNull())
    .addColumn('profile_id', 'text', (c) => c.notNull())
    .addColumn('sender_profile_id', 'text')
    .addColumn('send_anonymously', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('assigned_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('award_assignments_pk', ['community_id', 'award_id', 'profile_id'])
    .addForeignKeyConstraint('award_assignments_award', ['community_id', 'award_id'], 'awards', ['community_id', 'id'], (fk) =>
      fk.onDelete('cascade'),
    )
    .execute();

  await db.schema
    .createTable('award_notifications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('community_id', 'text', (c) => c.notNull().references('communities.id').onDelete('cascade'))
    .addColumn('award_id', 'text', (c) => c.notNull())
    .addColumn('profile_id', 'text', (c) => c.notNull())
    // The recipient's Slack user id: chat.postMessage to a user id is a direct message from the bot.
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('lease_until', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('sent_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('award_notifications_due').on('award_notifications').columns(['status', 'next_attempt_at']).execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropTable('award_notifications').ifExists().execute();
  await db.schema.dropTable('award_assignments').ifExists().execute();
  await db.schema.dropTable('awards').ifExists().execute();
  await db.schema.dropTable('webhook_delivery_attempts').ifExists().execute();
}
