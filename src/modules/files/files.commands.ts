import { createHash, randomUUID } from 'node:crypto';
import type { Insertable } from 'kysely';
import type { Database } from '../../db/database.js';
import type { FileChunksTable } from '../../db/schema.js';
import { ApiError, validationFailed } from '../../errors.js';
import { Refused } from '../../shared/failures.js';
import type { StorageDeps } from '../../shared/service-deps.js';
import { durationMs, subtractMillis } from '../../shared/time.js';
import { passedThrough } from '../../shared/young-garbage.js';
import type { CommandContext, TxContext } from '../../write-path/command-context.js';
import { writeCommunityData } from '../../write-path/write-community-data.js';
import { commitStagedFile, deleteStagedChunks, deleteStaleStagedChunks, insertStagedChunk, upsertFile } from './files.queries.js';
import { type FileRow, fileObject } from './files.records.js';
import { checkUploadFields, detectionHeadBytes, detectMimetype, isFailure, type UploadFields } from './files.rules.js';
import type { FileObject } from './files.schemas.js';

/*
 * Every change to files: an upload staged as it streams in, then committed in the write path (or
 * discarded); a whole file put by the import.
 */

/** Bytes per stored chunk row: large enough that a 10 MB file is 40 rows, small enough to hold one in memory per upload. */
const chunkBytes = 256 * 1024;

/** Staged rows older than this belong to an upload whose process stopped; the next upload drops them. */
const stagingLifetimeMs = durationMs(60 * 60_000);

/**
 * SQLite's page cache (KiB) while an upload's bytes pass through the connection. Every page written
 * enters the connection's cache, which better-sqlite3 bounds at 16 MB: left alone, the pages of one
 * 10 MB upload (staged, then moved) take 10 MB or more of the process's memory, pages no one reads
 * again (a download reads a chunk once; browsers and CDNs keep the file), and they evict the
 * community data's pages anyway. With the bound, the cache keeps 1 MB while uploads run and grows
 * back to its own size after them, refilled from the operating system's cache as reads need it.
 */
const uploadPageCacheKib = 1024;
const boundedCaches = new WeakMap<object, { uploads: number; cacheSize: number }>();

/** Runs `run` with the SQLite connection's page cache bounded (nested and concurrent uploads share one bound); nothing on PostgreSQL. */
async function withBoundedPageCache<T>(database: Database, run: () => Promise<T>): Promise<T> {
  const { sqlite } = database;
  if (!sqlite) return run();
  let state = boundedCaches.get(sqlite);
  if (!state) {
    state = { uploads: 0, cacheSize: Number(sqlite.pragma('cache_size', { simple: true })) };
    boundedCaches.set(sqlite, state);
    sqlite.pragma(`cache_size = -${uploadPageCacheKib}`);
  }
  state.uploads++;
  try {
    return await run();
  } finally {
    if (--state.uploads === 0) {
      boundedCaches.delete(sqlite);
      if (sqlite.open) sqlite.pragma(`cache_size = ${state.cacheSize}`);
    }
  }
}

/** An upload streamed into staging, not yet a file. */
export interface StagedUpload {
  uploadId: string;
  size: number;
  sha256: string;
  /** The first bytes, for type detection. */
  head: Buffer;
}

/** The stream of the uploaded file; `truncated` is set by the multipart parser past the size limit. */
export type UploadStream = AsyncIterable<Uint8Array> & { truncated?: boolean };

/** The 413 of a file over FILES_MAX_MB. */
export const fileTooLarge = (maxBytes: number): ApiError =>
  new ApiError('payload_too_large', `The file is larger than ${maxBytes / (1024 * 1024)} MiB.`, {
    hint: `Upload files of at most ${maxBytes} bytes (FILES_MAX_MB).`,
  });

/**
 * Streams an uploaded file into staging, one chunk row per 256 KiB as it arrives (the next piece
 * is read only once the row is written, so memory stays at one chunk whatever the file's size), and
 * returns what it staged. Over `maxBytes` it stops reading, drops what it staged and throws the 413.
 */
export function stageUpload(ctx: StorageDeps, { stream, maxBytes }: { stream: UploadStream; maxBytes: number }): Promise<StagedUpload> {
  return withBoundedPageCache(ctx.database, () => stageStream(ctx, stream, maxBytes));
}

async function stageStream(deps: StorageDeps, stream: UploadStream, maxBytes: number): Promise<StagedUpload> {
  const { db } = deps.database;
  await deleteStaleStagedChunks(db, subtractMillis(deps.clock.now(), stagingLifetimeMs));
  const uploadId = randomUUID();
  const hash = createHash('sha256');
  const chunk = Buffer.allocUnsafe(chunkBytes);
  let filled = 0;
  let size = 0;
  let seq = 0;
  let head: Buffer | undefined;
  const flush = async () => {
    const bytes = chunk.subarray(0, filled);
    head ??= Buffer.from(bytes.subarray(0, detectionHeadBytes));
    await insertStagedChunk(db, uploadId, seq++, bytes, deps.clock.now());
    // The request's buffers that carried these bytes are garbage now (src/shared/young-garbage.ts).
    passedThrough(bytes.byteLength);
    filled = 0;
  };
  const pieces = stream[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await pieces.next().catch((error: unknown) => {
        throw malformedBody(error);
      });
      if (next.done) break;
      const piece = next.value;
      size += piece.byteLength;
      if (size > maxBytes || stream.truncated) throw fileTooLarge(maxBytes);
      hash.update(piece);
      let offset = 0;
      while (offset < piece.byteLength) {
        const taken = Math.min(chunkBytes - filled, piece.byteLength - offset);
        chunk.set(piece.subarray(offset, offset + taken), filled);
        filled += taken;
        offset += taken;
        if (filled === chunkBytes) await flush();
      }
    }
    if (stream.truncated) throw fileTooLarge(maxBytes);
    if (filled > 0) await flush();
  } catch (error) {
    await pieces.return?.();
    await deleteStagedChunks(db, uploadId);
    throw error;
  }
  return { uploadId, size, sha256: hash.digest('hex'), head: head ?? Buffer.alloc(0) };
}

/** A failure of the multipart parser (no boundary, a part cut short, ...) as the client's 400; our own refusals pass. */
export function malformedBody(error: unknown): unknown {
  if (error instanceof ApiError) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return validationFailed('body', `is not valid multipart/form-data (${reason})`);
}

/** Drops what an upload staged (refused after it was read, or a replay of an earlier upload). */
export async function discardStagedUpload(ctx: StorageDeps, staged: StagedUpload): Promise<void> {
  await deleteStagedChunks(ctx.database.db, staged.uploadId);
}

/**
 * `POST /files` once the body is read: checks the fields against what was staged (refusing with
 * `Refused`, paths of the form's fields), detects the type from the bytes and makes the staged
 * upload a file of the community in one write. Whatever fails, the staged chunks are dropped: a
 * refused or failed upload leaves nothing.
 */
export async function createFile(
  ctx: CommandContext,
  { staged, fields, baseUrl }: { staged: StagedUpload | undefined; fields: UploadFields; baseUrl: string },
): Promise<FileObject> {
  const { communityId } = ctx;
  try {
    const checked = checkUploadFields(fields, staged?.size);
    if (isFailure(checked)) throw new Refused([checked]);
    const upload = staged as StagedUpload;
    const mimetype = await detectMimetype(upload.head);
    const row = await withBoundedPageCache(ctx.database, () =>
      writeCommunityData(ctx, communityId, async (w) => {
        const stored: FileRow = {
          community_id: communityId,
          id: randomUUID(),
          name: checked.name,
          title: checked.title,
          mimetype,
          size: upload.size,
          sha256: upload.sha256,
          chunk_size: chunkBytes,
          created_at: w.now,
        };
        await commitStagedFile(w.tx, stored, upload.uploadId, Math.ceil(upload.size / chunkBytes));
        w.record({
          action: 'file.uploaded',
          target: { type: 'file', id: stored.id, name: stored.name },
          metadata: { size: Number(stored.size), mimetype, sha256: stored.sha256 },
        });
        return stored;
      }),
    );
    return fileObject(row, baseUrl);
  } catch (error) {
    if (staged) await discardStagedUpload(ctx, staged);
    throw error;
  }
}

/** A whole file given at once (the import, whose file is already in memory): stored in chunks, replacing a file of the same id. */
export async function putFile(
  ctx: Pick<TxContext, 'tx'>,
  { row, bytes }: { row: Omit<FileRow, 'chunk_size' | 'mimetype'>; bytes: Buffer },
): Promise<void> {
  const chunks: Insertable<FileChunksTable>[] = [];
  for (let offset = 0, seq = 0; offset < bytes.length; offset += chunkBytes, seq++)
    chunks.push({ community_id: row.community_id, file_id: row.id, seq, data: bytes.subarray(offset, offset + chunkBytes) });
  const mimetype = await detectMimetype(bytes.subarray(0, detectionHeadBytes));
  await upsertFile(ctx.tx, { ...row, mimetype, chunk_size: chunkBytes }, chunks);
}
