import type { Db, Engine } from '../../db/database.js';
import { type PageMeta, pageOf } from '../../schemas/json-text.js';
import { passedThrough } from '../../shared/young-garbage.js';
import { selectChunkPieces, selectFileById, selectFilesPage } from './files.queries.js';
import { type FileRow, fileObject } from './files.records.js';
import type { FileObject } from './files.schemas.js';

/** The file a public URL names: its id, and the name it was uploaded with (any other name is a 404, as for a missing file). */
export async function findDownload(db: Db, id: string, name: string): Promise<FileRow | undefined> {
  const file = await selectFileById(db, id);
  return file && file.name === name ? file : undefined;
}

/**
 * The bytes `start` to `end` (inclusive) of a stored file, one chunk row per read: a download holds
 * one chunk in memory at a time, and a range reads only the chunks it covers.
 */
export async function* fileBytes(db: Db, engine: Engine, file: FileRow, start: number, end: number): AsyncGenerator<Buffer> {
  const chunkSize = Number(file.chunk_size);
  for (let seq = Math.floor(start / chunkSize); seq * chunkSize <= end; seq++) {
    const pieces = await selectChunkPieces(db, engine, file.community_id, file.id, seq);
    if (!pieces) throw new Error(`file ${file.id} has no chunk ${seq}`);
    let offset = seq * chunkSize;
    for (const piece of pieces) {
      const from = Math.max(0, start - offset);
      const to = Math.min(piece.byteLength, end - offset + 1);
      if (to > from) yield Buffer.from(piece.buffer, piece.byteOffset + from, to - from);
      offset += piece.byteLength;
    }
    // Written to the socket by now: the chunk read before it is garbage (src/shared/young-garbage.ts).
    passedThrough(offset - seq * chunkSize);
  }
}

/** `GET /files`: a page of the community's uploaded files, newest first, as the upload answered each (with its public URL). */
export async function listFiles(
  db: Db,
  communityId: string,
  page: number,
  perPage: number,
  baseUrl: string,
): Promise<PageMeta & { records: FileObject[] }> {
  const { rows, total } = await selectFilesPage(db, communityId, perPage, page * perPage);
  return pageOf(
    page,
    perPage,
    total,
    rows.map((row) => fileObject(row, baseUrl)),
  );
}
