import { formatJsonTimestamp } from '../../shared/timestamps.js';
import type { FileRow } from './files.queries.js';
import type { FileObject } from './files.schemas.js';

// The row is the statements' type (./files.queries.ts): said again here for the module's readers of records.
export type { FileRow };

/** The public URL of a file: `<base>/files/<id>/<name>` (the name percent-encoded, so any name is one path segment). */
export const fileUrl = (baseUrl: string, id: string, name: string): string => `${baseUrl}/files/${id}/${encodeURIComponent(name)}`;

/** A stored file as the API answers it. */
export function fileObject(row: Omit<FileRow, 'community_id' | 'sha256' | 'chunk_size'>, baseUrl: string): FileObject {
  return {
    id: row.id,
    created_at: formatJsonTimestamp(row.created_at),
    name: row.name,
    title: row.title,
    size: Number(row.size),
    mimetype: row.mimetype,
    url: fileUrl(baseUrl, row.id, row.name),
  };
}
