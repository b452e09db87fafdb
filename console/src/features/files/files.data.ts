import { type UploadedFile, uploadFile } from '@community-admin/client';
import { apiBase, type Session } from '../../session/session.js';

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
