import type { Selectable } from 'kysely';
import type { FilesTable } from '../../db/schema.js';
import { epochMicros } from '../../shared/time.js';
import { formatJsonTimestamp } from '../../shared/timestamps.js';
import type { FileObject } from './files.schemas.js';

export type FileRow = Selectable<FilesTable>;

/** The public URL of a file: `<base>/files/<id>/<name>` (the name percent-encoded, so any name is one path segment). */
export const fileUrl = (baseUrl: string, id: string, name: string): string => `${baseUrl}/files/${id}/${encodeURIComponent(name)}`;

/** A stored file as the API answers it. */
export function fileObject(row: Omit<FileRow, 'community_id' | 'sha256' | 'chunk_size'>, baseUrl: string): FileObject {
  return {
    id: row.id,
    created_at: formatJsonTimestamp(epochMicros(Number(row.created_at))),
    name: row.name,
    title: row.title,
    size: Number(row.size),
    mimetype: row.mimetype,
    url: fileUrl(baseUrl, row.id, row.name),
  };
}
