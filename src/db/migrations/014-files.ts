import { sql } from 'kysely';
import { isPostgres, type MigrationDb } from './migration-support.js';

/*
 * Uploaded files (docs/files.md), kept in the database so that every deployment serves them with
 * nothing more to run and every instance serves what another stored. A file's bytes are rows of
 * at most 256 KiB (`file_chunks`), read one at a time when served, so no file is ever whole in
 * memory. An upload is first streamed into `file_upload_chunks` (staging, outside any transaction,
 * so a slow client holds no lock), then moved into `file_chunks` in the one transaction of the write
 * path that also writes the `files` row: a failed or abandoned upload leaves no file behind.
 */

export async function up(db: MigrationDb): Promise<void> {
  const bytes = isPostgres(db) ? 'bytea' : 'blob';
  await db.schema
    .createTable('files')
    .addColumn('community_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('title', 'text')
    .addColumn('mimetype', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('chunk_size', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('files_pkey', ['community_id', 'id'])
    .execute();
  // Downloads name the file by id alone (the public URL carries no community). Not unique: an export
  // imported into another community keeps its file ids (and so its URLs), which the import allows
  // only for the very same file (name and bytes), so any row of an id serves the same thing.
  await db.schema.createIndex('files_id').on('files').column('id').execute();
  await db.schema
    .createTable('file_chunks')
    .addColumn('community_id', 'text', (c) => c.notNull())
    .addColumn('file_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('data', bytes, (c) => c.notNull())
    .addPrimaryKeyConstraint('file_chunks_pkey', ['community_id', 'file_id', 'seq'])
    .execute();
  await db.schema
    .createTable('file_upload_chunks')
    .addColumn('upload_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('data', bytes, (c) => c.notNull())
    // Epoch milliseconds: staging rows older than an hour belong to a process that died mid-upload.
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('file_upload_chunks_pkey', ['upload_id', 'seq'])
    .execute();
  await db.schema.createIndex('file_upload_chunks_created').on('file_upload_chunks').column('created_at').execute();
  // PostgreSQL: chunks are already compressed formats mostly; skip TOAST's compression attempt.
  if (isPostgres(db)) {
    await sql`alter table file_chunks alter column data set storage external`.execute(db);
    await sql`alter table file_upload_chunks alter column data set storage external`.execute(db);
  }
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropTable('file_upload_chunks').ifExists().execute();
  await db.schema.dropTable('file_chunks').ifExists().execute();
  await db.schema.dropTable('files').ifExists().execute();
}
