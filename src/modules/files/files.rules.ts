import type { Failure } from '../../shared/failures.js';

/*
 * Pure rules of uploaded files: the fields of an upload, and the type of a file from its bytes.
 *
 * The type of an uploaded file, from its bytes alone (the client's word is never taken: a file
 * served with a type it does not have is how a "picture" runs script in a visitor's browser).
 * `file-type` knows binary formats by their magic numbers; SVG is text, which it does not detect,
 * so that one is recognised here.
 */

/** Bytes of the head that detection looks at (file-type needs ~4 KiB; an SVG's root element comes early). */
export const detectionHeadBytes = 64 * 1024;

const unknownType = 'application/octet-stream';

// An optional BOM, XML prolog, then any comments, processing instructions and doctype, then <svg.
const svgStart =
  /^\uFEFF?\s*(?:<\?xml[^>]*\?>\s*)?(?:(?:<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<!DOCTYPE\s[^[>]*(?:\[[\s\S]*?\])?\s*>)\s*)*<svg[\s>/]/;

/** True when the text starts like an SVG document (with or without an `<?xml` prolog). */
function looksLikeSvg(head: Uint8Array): boolean {
  return svgStart.test(Buffer.from(head.buffer, head.byteOffset, head.byteLength).toString('utf8'));
}

type Detector = (head: Uint8Array) => Promise<{ mime: string } | undefined>;
let detector: Promise<Detector> | undefined;

/** The mimetype of a file whose first bytes are `head`; application/octet-stream when unknown. */
export async function detectMimetype(head: Uint8Array): Promise<string> {
  if (looksLikeSvg(head)) return 'image/svg+xml';
  // Loaded on first use: the server starts without it until someone uploads.
  detector ??= import('file-type').then((module) => module.fileTypeFromBuffer);
  const detected = await (await detector)(head);
  return detected?.mime ?? unknownType;
}

/** Types a browser shows without running anything of the file: served inline; all else is an attachment. */
const inlineTypes = /^(?:image\/(?!svg\+xml$)[a-z0-9.+-]+|audio\/[a-z0-9.+-]+|video\/[a-z0-9.+-]+|application\/pdf)$/;

/** True when a download of this type may be shown in the browser (not HTML, SVG, XML, script or unknown). */
export const servedInline = (mimetype: string): boolean => inlineTypes.test(mimetype);

/** The text fields of an upload as received. */
export interface UploadFields {
  filename?: string;
  size?: string;
  description?: string;
}

/** What the fields of an accepted upload say. */
export interface CheckedUpload {
  name: string;
  title: string | null;
}

// A name with an extension: no path separators or control characters, something after the last dot.
const forbiddenInName = /[/\\\p{Cc}]/u;
const extension = /\.[^.]+$/;

const failure = (field: string, rule: string, message: string): Failure => ({ path: [field], rule, message });

/**
 * The first field an upload gets wrong, as a failure, or its name and title. `receivedBytes` is the
 * size of the file part as read (undefined when there was none): `size` must say it.
 */
export function checkUploadFields(fields: UploadFields, receivedBytes: number | undefined): CheckedUpload | Failure {
  if (receivedBytes === undefined) return failure('file', 'required', 'is required (a multipart part named "file")');
  const { filename, size, description } = fields;
  if (filename === undefined) return failure('filename', 'required', 'is required');
  if (filename.length < 1 || filename.length > 255) return failure('filename', 'length', 'must be 1 to 255 characters');
  if (forbiddenInName.test(filename)) return failure('filename', 'format', 'must not contain slashes or control characters');
  if (!extension.test(filename)) return failure('filename', 'extension', 'must end with an extension, such as photo.png');
  if (size === undefined) return failure('size', 'required', 'is required');
  if (!/^[1-9][0-9]{0,15}$/.test(size)) return failure('size', 'format', 'must be a whole number of bytes, at least 1');
  if (receivedBytes === 0) return failure('file', 'empty', 'is empty');
  if (Number(size) !== receivedBytes) return failure('size', 'mismatch', `says ${size} bytes but the file has ${receivedBytes} bytes`);
  if (description !== undefined && description.length > 1000) return failure('description', 'too_long', 'must be at most 1000 characters');
  return { name: filename, title: description === undefined || description === '' ? null : description };
}

/** True when `checked` is a refusal rather than an accepted upload. */
export const isFailure = (checked: CheckedUpload | Failure): checked is Failure => 'rule' in checked;
