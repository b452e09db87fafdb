import type { MigrationDb } from './migration-support.js';

/*
 * The whole initial schema, identical on both engines. Every community table leads its primary key
 * and its list indexes with community_id, so one community's queries never walk another's rows.
 */

export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .createTable('communities')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('plan', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('events_version', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('posts_version', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('community_id', 'text', (c) => c.notNull().references('communities.id').onDelete('cascade'))
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .execute();
  await db.schema.createIndex('api_keys_community').on('api_keys').columns(['community_id', 'created_at']).execute();

  await db.schema
    .createTable('chat_connections')
    .addColumn('community_id', 'text', (c) => c.primaryKey().references('communities.id').onDelete('cascade'))
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('team_id', 'text')
    .addColumn('connected_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('profiles')
    .addColumn('community_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('email_norm', 'text', (c) => c.notNull())
    .addColumn('chat_user_id', 'text')
    .addColumn('doc', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('profiles_pk', ['community_id', 'id'])
    .execute();
  await db.schema.createIndex('profiles_email').on('profiles').columns(['community_id', 'email_norm']).execute();
  await db.schema.createIndex('profiles_chat_user').on('profiles').columns(['community_id', 'chat_user_id']).execute();

  await db.schema
    .createTable('members')
    .addColumn('community_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('email_norm', 'text', (c) => c.notNull())
    .addColumn('full_name', 'text', (c) => c.notNull())
    .addColumn('preferred_name', 'text', (c) => c.notNull())
    .addColumn('avatar_url_original', 'text')
    .addColumn('chat_profile_id', 'text')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('members_pk', ['community_id', 'id'])
    .addUniqueConstraint('members_email_unique', ['community_id', 'email_norm'])
    .execute();

  await db.schema
    .createTable('chat_invitations')
    .addColumn('community_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('email_norm', 'text', (c) => c.notNull())
    .addColumn('profile_id', 'text')
    .addColumn('member_id', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('channel_ids', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('chat_invitations_pk', ['community_id', 'id'])
    .execute();
  await db.schema.createIndex('chat_invitations_email').on('chat_invitations').columns(['community_id', 'email_norm']).execute();

  await db.schema
    .createTable('groups')
    .addColumn('community_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('groups_pk', ['community_id', 'id'])
    .execute();

  await db.schema
    .createTable('group_members')
    .addColumn('community_id', 'text', (c) => c.notNull())
    .addColumn('group_id', 'text', (c) => c.notNull())
    .addColumn('profile_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('group_members_pk', ['community_id', 'group_id', 'profile_id'])
    .execute();

  await db.schema
    .createTable('feeds')
    .addColumn('community_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('chat_channel_id', 'text')
    .addColumn('is_archived', 'integer', (c) => c.notNull())
    .addColumn('is_unlisted', 'integer', (c) => c.notNull())
    .addColumn('doc', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('feeds_pk', ['community_id', 'id'])
    .execute();
  await db.schema.createIndex('feeds_channel').on('feeds').columns(['community_id', 'chat_channel_id']).execute();

  await db.schema
    .createTable('posts')
    .addColumn('community_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('feed_id', 'text', (c) => c.notNull())
    .addColumn('author_profile_id', 'text')
    .addColumn('in_home', 'integer', (c) => c.notNull())
    .addColumn('content_created_at', 'bigint', (c) => c.notNull())
    .addColumn('latest_activity_at', 'bigint', (c) => c.notNull())
    .addColumn('doc', 'text', (c) => c.notNull())
    .addColumn('mentions', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('posts_pk', ['community_id', 'id'])
    .execute();
  for (const sort of ['content_created_at', 'latest_activity_at']) {
    await db.schema.createIndex(`posts_feed_${sort}`).on('posts').columns(['community_id', 'feed_id', sort, 'id']).execute();
    await db.schema.createIndex(`posts_home_${sort}`).on('posts').columns(['community_id', 'in_home', sort, 'id']).execute();
  }

  await db.schema
    .createTable('calendar_events')
    .addColumn('community_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('start_at', 'bigint', (c) => c.notNull())
    .addColumn('end_at', 'bigint')
    .addColumn('ends_at', 'bigint', (c) => c.notNull())
    .addColumn('publish_to_site', 'integer', (c) => c.notNull())
    .addColumn('is_unlisted', 'integer', (c) => c.notNull())
    .addColumn('attendees_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('doc', 'text', (c) => c.notNull())
    .addColumn('mentions', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('calendar_events_pk', ['community_id', 'id'])
    .execute();
  await db.schema
    .createIndex('calendar_events_start')
    .on('calendar_events')
    .columns(['community_id', 'status', 'start_at', 'id'])
    .execute();
  await db.schema
    .createIndex('calendar_events_ends')
    .on('calendar_events')
    .columns(['community_id', 'status', 'ends_at', 'start_at', 'id'])
    .execute();

  await db.schema
    .createTable('calendar_event_tags')
    .addColumn('community_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('tag_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('calendar_event_tags_pk', ['community_id', 'event_id', 'tag_id'])
    .execute();
  await db.schema
    .createIndex('calendar_event_tags_tag')
    .on('calendar_event_tags')
    .columns(['community_id', 'tag_id', 'event_id'])
    .execute();

  await db.schema
    .createTable('calendar_event_feeds')
    .addColumn('community_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('feed_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('calendar_event_feeds_pk', ['community_id', 'event_id', 'feed_id'])
    .execute();
  await db.schema
    .createIndex('calendar_event_feeds_feed')
    .on('calendar_event_feeds')
    .columns(['community_id', 'feed_id', 'event_id'])
    .execute();

  await db.schema
    .createTable('calendar_event_people')
    .addColumn('community_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('profile_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('calendar_event_people_pk', ['community_id', 'event_id', 'role', 'position'])
    .execute();

  await db.schema
    .createTable('calendar_event_attendees')
    .addColumn('community_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('profile_id', 'text', (c) => c.notNull())
    .addColumn('personal_join_link', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('calendar_event_attendees_pk', ['community_id', 'event_id', 'profile_id'])
    .execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('community_id', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('headers', 'text')
    .addColumn('body', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['community_id', 'key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_expiry').on('idempotency_keys').columns(['expires_at']).execute();
}

export async function down(db: MigrationDb): Promise<void> {
  for (const table of [
    'idempotency_keys',
    'calendar_event_attendees',
    'calendar_event_people',
    'calendar_event_feeds',
    'calendar_event_tags',
    'calendar_events',
    'posts',
    'feeds',
    'group_members',
    'groups',
    'chat_invitations',
    'members',
    'profiles',
    'chat_connections',
    'api_keys',
    'communities',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
