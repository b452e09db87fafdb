import { AdminApiError } from './errors.js';

/** What `uploadFile` sends: the bytes and the text parts of `POST /admin/v0/files`. */
export interface UploadInput {
  /** Where the server is, as for createClient. */
  baseUrl: string;
  apiKey: string;
  file: Blob;
  /** With its extension, e.g. photo.png. */
  filename: string;
  /** Alt text; answered as `title`. */
  description?: string;
  /** Called as the bytes leave, with the bytes sent and the total. */
  onProgress?: (sent: number, total: number) => void;
  /** Aborts the upload. */
  signal?: AbortSignal;
}

/** A stored file, as `POST /admin/v0/files` answers it. */
export interface UploadedFile {
  id: string;
  created_at: string;
  name: string;
  title: string | null;
  size: number;
  mimetype: string;
  url: string;
}

/** What uploadFile uses of XMLHttpRequest (declared here: the client is type-checked without the DOM library too). */
interface Xhr {
  open(method: string, url: string): void;
  setRequestHeader(name: string, value: string): void;
  responseType: string;
  readonly responseText: string;
  readonly status: number;
  readonly statusText: string;
  getAllResponseHeaders(): string;
  upload: { onprogress: ((event: { loaded: number; total: number; lengthComputable: boolean }) => void) | null };
  onerror: (() => void) | null;
  onabort: (() => void) | null;
  onload: (() => void) | null;
  abort(): void;
  send(body: FormData): void;
}

/**
 * Uploads a file through XMLHttpRequest, in a browser: fetch cannot report upload progress, which
 * a person watching a large file needs. Not retried: an upload is not idempotent without a key, and
 * the person can send it again.
 */
export function uploadFile(input: UploadInput): Promise<UploadedFile> {
  const form = new FormData();
  // The text parts first: the server reads them before it stages the bytes.
  form.append('filename', input.filename);
  form.append('size', String(input.file.size));
  if (input.description) form.append('description', input.description);
  form.append('file', input.file, input.filename);
  const XhrClass = (globalThis as unknown as { XMLHttpRequest?: new () => Xhr }).XMLHttpRequest;
  if (!XhrClass)
    return Promise.reject(new Error('uploadFile needs a browser (XMLHttpRequest); elsewhere POST /admin/v0/files with the client.'));
  return new Promise((resolve, reject) => {
    const request = new XhrClass();
    request.open('POST', `${input.baseUrl.replace(/\/+$/, '')}/admin/v0/files`);
    request.setRequestHeader('authorization', `Bearer ${input.apiKey}`);
    request.setRequestHeader('idempotency-key', crypto.randomUUID());
    request.responseType = 'text';
    request.upload.onprogress = (event) => input.onProgress?.(event.loaded, event.lengthComputable ? event.total : input.file.size);
    request.onerror = () => reject(new Error('The upload did not reach the server (network error).'));
    request.onabort = () => reject(new DOMException('The upload was cancelled.', 'AbortError'));
    request.onload = () => {
      let body: unknown;
      try {
        body = JSON.parse(request.responseText);
      } catch {
        body = undefined;
      }
      const headers = new Headers();
      for (const line of request.getAllResponseHeaders().trim().split(/\r?\n/)) {
        const at = line.indexOf(':');
        if (at > 0) headers.append(line.slice(0, at).trim(), line.slice(at + 1).trim());
      }
      if (request.status >= 200 && request.status < 300 && body && typeof body === 'object' && 'data' in body) {
        resolve((body as { data: UploadedFile }).data);
        return;
      }
      reject(new AdminApiError(new Response(null, { status: request.status, statusText: request.statusText, headers }), body));
    };
    input.signal?.addEventListener('abort', () => request.abort(), { once: true });
    request.send(form);
  });
}
