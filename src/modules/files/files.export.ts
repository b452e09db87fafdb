import type { Db } from '../../db/database.js';
import { formatJsonTimestamp } from '../../shared/timestamps.js';
import { selectChunks } from './files.queries.js';
import type { FileRow } from './files.records.js';

/** The columns of a file its export record needs. */
export type ExportedFile = Pick<FileRow, 'community_id' | 'id' | 'name' | 'title' | 'size' | 'sha256' | 'chunk_size' | 'created_at'>;

/** The fields of a file's export record before its content, in the import schema's order. */
export const fileRecordHead = (file: ExportedFile): Record<string, unknown> => ({
  id: file.id,
  name: file.name,
  title: file.title,
  size: Number(file.size),
  sha256: file.sha256,
  created_at: formatJsonTimestamp(file.created_at),
});

/**
 * A file's bytes as base64 text, a chunk at a time: bytes that do not make a whole 3-byte group
 * wait for the next chunk, so the pieces join into exactly the base64 of the whole file while no
 * more than one chunk is held.
 */
export async function* base64Pieces(db: Db, file: ExportedFile): AsyncGenerator<string> {
  let carry: Buffer = Buffer.alloc(0);
  for await (const chunk of selectChunks(db, file)) {
    const bytes = carry.length === 0 ? Buffer.from(chunk) : Buffer.concat([carry, chunk]);
    const whole = bytes.length - (bytes.length % 3);
    yield bytes.subarray(0, whole).toString('base64');
    carry = Buffer.from(bytes.subarray(whole));
  }
  if (carry.length > 0) yield carry.toString('base64');
}
