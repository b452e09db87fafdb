import type { Db } from '../../db/database.js';
import { passedThrough } from '../../shared/young-garbage.js';
import { selectChunk, selectFileById } from './files.queries.js';
import type { FileRow } from './files.records.js';

/** The file a public URL names: its id, and the name it was uploaded with (any other name is a 404, as for a missing file). */
export async function findDownload(db: Db, id: string, name: string): Promise<FileRow | undefined> {
  const file = await selectFileById(db, id);
  return file && file.name === name ? file : undefined;
}

/**
 * The bytes `start` to `end` (inclusive) of a stored file, one chunk row per read: a download holds
 * one chunk in memory at a time, and a range reads only the chunks it covers.
 */
export async function* fileBytes(db: Db, file: FileRow, start: number, end: number): AsyncGenerator<Buffer> {
  const chunkSize = Number(file.chunk_size);
  for (let seq = Math.floor(start / chunkSize); seq * chunkSize <= end; seq++) {
    const data = await selectChunk(db, file.community_id, file.id, seq);
    if (!data) throw new Error(`file ${file.id} has no chunk ${seq}`);
    const from = Math.max(0, start - seq * chunkSize);
    const to = Math.min(data.byteLength, end - seq * chunkSize + 1);
    yield Buffer.from(data.buffer, data.byteOffset + from, to - from);
    // Written to the socket by now: the chunk read before it is garbage (src/shared/young-garbage.ts).
    passedThrough(data.byteLength);
  }
}
