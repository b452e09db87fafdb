import { sql } from 'kysely';
import type { MigrationDb } from './migration-support.js';

/*
 * The console's Slack page (issue 39, docs/chat.md "Sync jobs and status"):
 *
 * `chat_sync_jobs`: a backfill (`chat sync`) the server runs for the API, one row per job, drained
 * by a leased worker (src/modules/chat-sync/worker/sync-jobs.ts). At most one queued or running job per
 * community: a partial unique index, so two starts at once cannot both insert one.
 *
 * `chat_sync_status`: what was last learnt about a community's Slack connection: whether each
 * token answered auth.test, whether the bot is in each bound channel, and how the last backfill
 * (CLI or job) ended. One row per community, written by the checks and at the end of a backfill.
 */

export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .createTable('chat_sync_jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('community_id', 'text', (c) => c.notNull().references('communities.id').onDelete('cascade'))
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('since', 'bigint')
    .addColumn('progress', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_until', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('started_at', 'bigint')
    .addColumn('finished_at', 'bigint')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('chat_sync_jobs_community').on('chat_sync_jobs').columns(['community_id', 'created_at']).execute();
  await db.schema
    .createIndex('chat_sync_jobs_active')
    .on('chat_sync_jobs')
    .column('community_id')
    .unique()
    .where(sql.ref('state'), 'in', ['queued', 'running'])
    .execute();
  await db.schema.createIndex('chat_sync_jobs_waiting').on('chat_sync_jobs').columns(['state', 'created_at']).execute();

  await db.schema
    .createTable('chat_sync_status')
    .addColumn('community_id', 'text', (c) => c.primaryKey().references('communities.id').onDelete('cascade'))
    .addColumn('admin_token_checked_at', 'bigint')
    .addColumn('admin_token_error', 'text')
    .addColumn('bot_token_checked_at', 'bigint')
    .addColumn('bot_token_error', 'text')
    .addColumn('channels_checked_at', 'bigint')
    .addColumn('channels', 'text')
    .addColumn('last_sync_at', 'bigint')
    .addColumn('last_sync_result', 'text')
    .addColumn('last_sync_error', 'text')
    .addColumn('last_sync_job_id', 'text')
    .execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropTable('chat_sync_status').ifExists().execute();
  await db.schema.dropTable('chat_sync_jobs').ifExists().execute();
}
