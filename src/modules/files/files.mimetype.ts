/*
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
export function looksLikeSvg(head: Uint8Array): boolean {
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
