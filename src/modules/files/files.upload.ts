import { createHash, randomUUID } from 'node:crypto';
import { ApiError, validationFailed } from '../../errors.js';
import type { StorageDeps } from '../../shared/service-deps.js';
import { durationMs, subtractMillis } from '../../shared/time.js';
import { writeCommunityData } from '../../write-path/write-community-data.js';
import { detectionHeadBytes, detectMimetype } from './files.mimetype.js';
import { commitStagedFile, deleteStagedChunks, deleteStaleStagedChunks, insertStagedChunk } from './files.queries.js';
import { type FileRow, fileObject } from './files.records.js';
import type { FileObject } from './files.schemas.js';

/** Bytes per stored chunk row: large enough that a 10 MB file is 40 rows, small enough to hold one in memory per upload. */
export const chunkBytes = 256 * 1024;

/** Staged rows older than this belong to an upload whose process stopped; the next upload drops them. */
const stagingLifetimeMs = durationMs(60 * 60_000);

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
export async function stageUpload(deps: StorageDeps, stream: UploadStream, maxBytes: number): Promise<StagedUpload> {
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

/** The text fields of an upload as received. */
export interface UploadFields {
  filename?: string;
  size?: string;
  description?: string;
}

// A name with an extension: no path separators or control characters, something after the last dot.
const forbiddenInName = /[/\\\p{Cc}]/u;
const extension = /\.[^.]+$/;

/** 400 naming the first field the upload gets wrong (checked once the file is staged: its size is known then). */
function checkFields(fields: UploadFields, staged: StagedUpload | undefined): { name: string; title: string | null } {
  if (!staged) throw validationFailed('body.file', 'is required (a multipart part named "file")');
  const { filename, size, description } = fields;
  if (filename === undefined) throw validationFailed('body.filename', 'is required');
  if (filename.length < 1 || filename.length > 255) throw validationFailed('body.filename', 'must be 1 to 255 characters');
  if (forbiddenInName.test(filename)) throw validationFailed('body.filename', 'must not contain slashes or control characters');
  if (!extension.test(filename)) throw validationFailed('body.filename', 'must end with an extension, such as photo.png');
  if (size === undefined) throw validationFailed('body.size', 'is required');
  if (!/^[1-9][0-9]{0,15}$/.test(size)) throw validationFailed('body.size', 'must be a whole number of bytes, at least 1');
  if (staged.size === 0) throw validationFailed('body.file', 'is empty');
  if (Number(size) !== staged.size) throw validationFailed('body.size', `says ${size} bytes but the file has ${staged.size} bytes`);
  if (description !== undefined && description.length > 1000) throw validationFailed('body.description', 'must be at most 1000 characters');
  return { name: filename, title: description === undefined || description === '' ? null : description };
}

/**
 * `POST /files` once the body is read: checks the fields against what was staged, detects the
 * type from the bytes and makes the staged upload a file of the community in one write. Whatever
 * fails, the staged chunks are dropped: a refused or failed upload leaves nothing.
 */
export async function createFile(
  deps: StorageDeps,
  communityId: string,
  staged: StagedUpload | undefined,
  fields: UploadFields,
  baseUrl: string,
): Promise<FileObject> {
  try {
    const { name, title } = checkFields(fields, staged);
    const upload = staged as StagedUpload;
    const mimetype = await detectMimetype(upload.head);
    const row = await writeCommunityData(deps, communityId, async (w) => {
      const stored: FileRow = {
        community_id: communityId,
        id: randomUUID(),
        name,
        title,
        mimetype,
        size: upload.size,
        sha256: upload.sha256,
        chunk_size: chunkBytes,
        created_at: w.now,
      };
      await commitStagedFile(w.tx, stored, upload.uploadId);
      return stored;
    });
    return fileObject(row, baseUrl);
  } catch (error) {
    if (staged) await deleteStagedChunks(deps.database.db, staged.uploadId);
    throw error;
  }
}
