import { type Insertable, PostgresAdapter, type Selectable, sql } from 'kysely';
import { selectInBatches } from '../../db/batches.js';
import type { Db, Engine, Tx } from '../../db/database.js';
import { orderedRows } from '../../db/ordered-rows.js';
import type { FileChunksTable, FilesTable } from '../../db/schema.js';
import type { EpochMillis } from '../../shared/time.js';

/** A stored file's row. */
export type FileRow = Selectable<FilesTable>;

/*
 * The SQL of uploaded files. Staging rows (`file_upload_chunks`) are not community data: they are
 * written outside any transaction while an upload streams in and become a file only when
 * `commitStagedFile` moves them, in the write path's transaction.
 */

/** Stores one staged chunk of an upload in progress. */
export async function insertStagedChunk(db: Db, uploadId: string, seq: number, data: Buffer, nowMs: EpochMillis): Promise<void> {
  await db.insertInto('file_upload_chunks').values({ upload_id: uploadId, seq, data, created_at: nowMs }).execute();
}

/** Drops what an upload staged (it failed, or was refused after it was read). */
export async function deleteStagedChunks(db: Db, uploadId: string): Promise<void> {
  await db.deleteFrom('file_upload_chunks').where('upload_id', '=', uploadId).execute();
}

/** Drops staged chunks older than `beforeMs`: uploads of a process that stopped before it could clean up. */
export async function deleteStaleStagedChunks(db: Db, beforeMs: EpochMillis): Promise<void> {
  await db.deleteFrom('file_upload_chunks').where('created_at', '<', beforeMs).execute();
}

/**
 * Makes a staged upload a file of the community: its row, and its chunks moved out of staging one
 * at a time, each staged row deleted as soon as it is copied. On SQLite the pages a deleted row
 * frees are reused by the next copy in the same transaction, so the move touches about one file's
 * worth of pages, not two: the connection's page cache (up to 16 MB) does not fill with both copies.
 */
export async function commitStagedFile(tx: Tx, row: Insertable<FilesTable>, uploadId: string, chunkCount: number): Promise<void> {
  await tx.insertInto('files').values(row).execute();
  for (let seq = 0; seq < chunkCount; seq++) {
    await tx
      .insertInto('file_chunks')
      .columns(['community_id', 'file_id', 'seq', 'data'])
      .expression((eb) =>
        eb
          .selectFrom('file_upload_chunks')
          .select([eb.val(row.community_id).as('community_id'), eb.val(row.id).as('file_id'), 'seq', 'data'])
          .where('upload_id', '=', uploadId)
          .where('seq', '=', seq),
      )
      .execute();
    await tx.deleteFrom('file_upload_chunks').where('upload_id', '=', uploadId).where('seq', '=', seq).execute();
  }
}

/** Writes a whole file at once (the import, whose file is already in memory). */
export async function upsertFile(tx: Tx, row: Insertable<FilesTable>, chunks: readonly Insertable<FileChunksTable>[]): Promise<void> {
  await tx.deleteFrom('file_chunks').where('community_id', '=', row.community_id).where('file_id', '=', row.id).execute();
  await tx.deleteFrom('files').where('community_id', '=', row.community_id).where('id', '=', row.id).execute();
  await tx.insertInto('files').values(row).execute();
  for (const chunk of chunks) await tx.insertInto('file_chunks').values(chunk).execute();
}

/** A file by its id alone (public downloads name no community); rows of one id in several communities hold the same file. */
export async function selectFileById(db: Db, id: string): Promise<FileRow | undefined> {
  return db.selectFrom('files').selectAll().where('id', '=', id).orderBy('community_id').limit(1).executeTakeFirst();
}

/** Name and digest of the given files as other communities hold them, by id (an import may reuse an id only for the same file). */
export async function selectForeignFiles(
  db: Db | Tx,
  communityId: string,
  ids: readonly string[],
): Promise<Map<string, { name: string; sha256: string }>> {
  const rows = await selectInBatches(ids, (batch) =>
    db.selectFrom('files').select(['id', 'name', 'sha256']).where('id', 'in', batch).where('community_id', '<>', communityId).execute(),
  );
  return new Map(rows.map((row) => [row.id, row]));
}

/** The chunks of a file in order, one row per read (the export streams them). */
export async function* selectChunks(
  db: Db,
  file: Pick<FileRow, 'community_id' | 'id' | 'size' | 'chunk_size'>,
): AsyncGenerator<Uint8Array> {
  const count = Math.ceil(Number(file.size) / Number(file.chunk_size));
  for (let seq = 0; seq < count; seq++) {
    const data = await selectChunk(db, file.community_id, file.id, seq);
    if (!data) throw new Error(`file ${file.id} has no chunk ${seq}`);
    yield data;
  }
}

/** The bytes of one chunk of a file. */
async function selectChunk(db: Db, communityId: string, fileId: string, seq: number): Promise<Uint8Array | undefined> {
  const row = await db
    .selectFrom('file_chunks')
    .select('data')
    .where('community_id', '=', communityId)
    .where('file_id', '=', fileId)
    .where('seq', '=', seq)
    .executeTakeFirst();
  return row?.data;
}

/** Bytes per row when PostgreSQL sends a chunk in pieces (selectChunkPieces). */
const pgPieceBytes = 32 * 1024;

/**
 * The bytes of one chunk of a file, as pieces that join into it (undefined when there is no such
 * chunk). SQLite gives the blob as it is. PostgreSQL sends bytea as hex text: a whole 256 KiB chunk
 * is one 512 KiB message, which the driver buffers and decodes through strings too large for V8's
 * young generation (they go to its large-object space) and grows buffers for, 3 to 5 times the
 * chunk's bytes per chunk: a 10 MB download raised peak RSS by 30-47 MiB. In rows of 32 KiB (64 KiB
 * of text) the driver's buffers stay small and the strings die young.
 */
export async function selectChunkPieces(
  db: Db,
  engine: Engine,
  communityId: string,
  fileId: string,
  seq: number,
): Promise<Uint8Array[] | undefined> {
  if (engine === 'sqlite') {
    const data = await selectChunk(db, communityId, fileId, seq);
    return data && [data];
  }
  const { rows } = await sql<{ data: Uint8Array }>`
    select substring(c.data from p.start for ${pgPieceBytes}) as data
    from file_chunks c cross join generate_series(1, length(c.data), ${pgPieceBytes}) as p(start)
    where c.community_id = ${communityId} and c.file_id = ${fileId} and c.seq = ${seq}
    order by p.start`.execute(db);
  return rows.length > 0 ? rows.map((row) => row.data) : undefined;
}

/** The names of the given files of the community, by id (the files that exist). */
export async function selectFileNames(db: Db | Tx, communityId: string, ids: readonly string[]): Promise<Map<string, string>> {
  const rows = await selectInBatches(ids, (batch) =>
    db.selectFrom('files').select(['id', 'name']).where('community_id', '=', communityId).where('id', 'in', batch).execute(),
  );
  return new Map(rows.map((row) => [row.id, row.name]));
}

/** The community's files (without their bytes) in byte order of id, a batch at a time (the export). */
export function fileRowsInIdOrder(tx: Db, engine: Engine, communityId: string) {
  return orderedRows(tx, engine, 'files', communityId, (q) =>
    q.select(['community_id', 'id', 'name', 'title', 'size', 'sha256', 'chunk_size', 'created_at']),
  );
}

/** A page of the community's files (without their bytes), newest first (ties by id, byte order on both engines), and their total. */
export async function selectFilesPage(
  db: Db,
  communityId: string,
  limit: number,
  offset: number,
): Promise<{ rows: Omit<FileRow, 'community_id' | 'sha256' | 'chunk_size'>[]; total: number }> {
  // PostgreSQL: the id in byte order, as the index (migration 019) and SQLite have it.
  const id = db.getExecutor().adapter instanceof PostgresAdapter ? sql`id collate "C"` : sql`id`;
  const [rows, count] = await Promise.all([
    db
      .selectFrom('files')
      .select(['id', 'name', 'title', 'mimetype', 'size', 'created_at'])
      .where('community_id', '=', communityId)
      .orderBy('created_at', 'desc')
      .orderBy(id, 'desc')
      .limit(limit)
      .offset(offset)
      .execute(),
    db
      .selectFrom('files')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('community_id', '=', communityId)
      .executeTakeFirst(),
  ]);
  return { rows, total: Number(count?.n ?? 0) };
}
