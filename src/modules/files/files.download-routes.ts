import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import contentDisposition from 'content-disposition';
import type { FastifyReply, FastifyRequest } from 'fastify';
import rangeParser from 'range-parser';
import type { ModuleOptions } from '../../dependencies.js';
import { ApiError, notFound } from '../../errors.js';
import { fileBytes, findDownload } from './files.download.js';
import { servedInline } from './files.mimetype.js';
import type { FileRow } from './files.records.js';
import { DownloadParamsSchema } from './files.schemas.js';

/** A file's bytes never change under its URL: any cache may keep them for a year. */
const immutable = 'public, max-age=31536000, immutable';

/** True when If-None-Match names the file's ETag (or is `*`); weak forms compare by their tag, as RFC 9110 asks. */
function matchesAny(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag;
  });
}

/** The one byte range to send, or null for the whole file (no Range, an If-Range that no longer matches, several ranges, a malformed header). */
function requestedRange(request: FastifyRequest, file: FileRow, etag: string): { start: number; end: number } | null {
  const header = request.headers.range;
  const size = Number(file.size);
  if (!header) return null;
  const ifRange = request.headers['if-range'];
  if (typeof ifRange === 'string' && ifRange.trim() !== etag) return null;
  const ranges = rangeParser(size, header, { combine: true });
  if (ranges === -1)
    throw new ApiError('range_not_satisfiable', `The file has ${size} bytes.`, { headers: { 'content-range': `bytes */${size}` } });
  if (ranges === -2 || ranges.type !== 'bytes' || ranges.length !== 1) return null;
  const [range] = ranges;
  return range ? { start: range.start, end: range.end } : null;
}

/** Headers that say what the bytes are and how a browser may treat them. */
function describe(reply: FastifyReply, file: FileRow, etag: string): void {
  const inline = servedInline(file.mimetype);
  reply.header('cache-control', immutable);
  reply.header('etag', etag);
  reply.header('accept-ranges', 'bytes');
  reply.header('content-type', file.mimetype);
  reply.header('content-disposition', contentDisposition(file.name, { type: inline ? 'inline' : 'attachment' }));
  // HTML, SVG, XML, script, anything unknown: downloaded, and never run with this origin's rights if opened.
  if (!inline) reply.header('content-security-policy', 'sandbox');
}

/** GET /files/{id}/{name}: the public bytes of an uploaded file, with no key (docs/files.md). */
export const fileDownloadRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { services }) => {
  const { db } = services.database;
  app.get(
    '/files/:file_id/:name',
    {
      config: { public: true, downloadBudget: true, operation: 'files.download' },
      schema: { hide: true, params: DownloadParamsSchema },
    },
    async (request, reply) => {
      const file = await findDownload(db, request.params.file_id, request.params.name);
      if (!file) throw notFound('File');
      const etag = `"${file.sha256}"`;
      describe(reply, file, etag);
      if (matchesAny(request.headers['if-none-match'], etag)) return reply.code(304).send();
      const size = Number(file.size);
      const range = requestedRange(request, file, etag);
      const { start, end } = range ?? { start: 0, end: size - 1 };
      if (range) reply.code(206).header('content-range', `bytes ${start}-${end}/${size}`);
      reply.header('content-length', String(end - start + 1));
      // HEAD: the headers only (Fastify would read a real stream to its end and drop it).
      const bytes = request.method === 'HEAD' ? [] : fileBytes(db, file, start, end);
      return reply.send(Readable.from(bytes, { objectMode: false }));
    },
  );
};
