import type { MigrationDb } from './migration-support.js';

/*
 * Calendar subscriptions (issue 40, docs/calendar-feeds.md). `calendar_feeds`: one row per feed,
 * named by a secret token kept only as its SHA-256 (a member's own feed also keeps the token sealed
 * by SECRETS_KEY, so that the same URL can be answered again). `calendar_feed_entries`: what each
 * feed last showed of each event (its SEQUENCE, the fingerprint of the fields that raise it, and
 * enough of a removed event to announce it CANCELLED for CALENDAR_FEED_PAST_DAYS).
 */

export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .createTable('calendar_feeds')
    .addColumn('community_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('token_sealed', 'text')
    .addColumn('member_id', 'text')
    .addColumn('tag_id', 'text')
    .addColumn('include_unlisted', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .addPrimaryKeyConstraint('calendar_feeds_pkey', ['community_id', 'id'])
    .execute();
  // A request names its feed by the token alone (the URL carries no community).
  await db.schema.createIndex('calendar_feeds_token').on('calendar_feeds').column('token_hash').unique().execute();
  await db.schema.createIndex('calendar_feeds_member').on('calendar_feeds').columns(['community_id', 'member_id']).execute();
  await db.schema
    .createTable('calendar_feed_entries')
    .addColumn('community_id', 'text', (c) => c.notNull())
    .addColumn('feed_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('sequence', 'integer', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('start_at', 'bigint', (c) => c.notNull())
    .addColumn('end_at', 'bigint')
    .addColumn('ends_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('changed_at', 'bigint', (c) => c.notNull())
    .addColumn('removed_at', 'bigint')
    .addPrimaryKeyConstraint('calendar_feed_entries_pkey', ['community_id', 'feed_id', 'event_id'])
    .execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropTable('calendar_feed_entries').ifExists().execute();
  await db.schema.dropTable('calendar_feeds').ifExists().execute();
}
