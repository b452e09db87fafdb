import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One part of a multipart/form-data body: a text field, or a file when `filename` is given. */
export interface FormPart {
  name: string;
  value: string | Buffer;
  filename?: string;
  contentType?: string;
}

/** A multipart/form-data body as a browser sends it, with its Content-Type header. */
export function multipartBody(parts: readonly FormPart[]): { payload: Buffer; headers: { 'content-type': string } } {
  const boundary = `----test${randomUUID()}`;
  const pieces: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}`;
    const type = part.filename === undefined ? '' : `Content-Type: ${part.contentType ?? 'application/octet-stream'}\r\n`;
    pieces.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`));
    pieces.push(typeof part.value === 'string' ? Buffer.from(part.value) : part.value);
    pieces.push(Buffer.from('\r\n'));
  }
  pieces.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(pieces), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** The parts of an upload of `bytes` named `filename`, with `size` (default: the true one) and an optional description. */
export function uploadParts(bytes: Buffer, filename: string, options: { size?: string; description?: string } = {}): FormPart[] {
  return [
    { name: 'filename', value: filename },
    { name: 'size', value: options.size ?? String(bytes.length) },
    ...(options.description === undefined ? [] : [{ name: 'description', value: options.description }]),
    { name: 'file', value: bytes, filename, contentType: 'text/plain' },
  ];
}

/**
 * Small real files of test/support/fixtures: tiny.png and tiny.jpg are the 16x16 Python logo of
 * CPython's imghdr test data (PSF licence), tiny.pdf a one-page PDF, the SVGs written by hand.
 */
export const fixture = (name: string): Buffer => readFileSync(join(import.meta.dirname, 'fixtures', name));
