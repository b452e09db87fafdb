import { type AdminClient, type ListRecord, type paths, type UploadedFile, unwrap, uploadFile } from '@community-admin/client';
import { apiBase, type Session } from '../../session/session.js';
import type { Page } from '../../shared/paged-table.js';

export type { UploadedFile };

/** Uploads through the client's XMLHttpRequest upload (fetch reports no upload progress). */
export function upload(
  session: Session,
  file: File,
  description: string,
  onProgress: (sent: number, total: number) => void,
): Promise<UploadedFile> {
  return uploadFile({ baseUrl: apiBase(), apiKey: session.key, file, filename: file.name, description, onProgress });
}

// --- the list ---

export type ListedFile = ListRecord<paths, '/admin/v0/files'>;
export const perPage = 20;

export async function listFiles(client: AdminClient<paths>, page: number): Promise<Page<ListedFile>> {
  return unwrap(await client.GET('/admin/v0/files', { params: { query: { page, per_page: perPage } } })).data as Page<ListedFile>;
}

/** Bytes as people read them (1 KB = 1024 bytes, as file managers show them). */
export function sizeOf(bytes: number): string {
  // A no-break space keeps the number and its unit on one line.
  if (bytes < 1024) return `${bytes}\u00a0B`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)}\u00a0${units[unit]}`;
}
