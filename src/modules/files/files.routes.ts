import { Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import contentDisposition from 'content-disposition';
import type { FastifyReply, FastifyRequest } from 'fastify';
import rangeParser from 'range-parser';
import type { ModuleOptions } from '../../dependencies.js';
import { ApiError, notFound, validationFailed } from '../../errors.js';
import { commandContext } from '../../routing/command-context.js';
import { principalOf } from '../../routing/request-context.js';
import {
  errorResponses,
  IdempotencyHeaders,
  idempotentErrorStatuses,
  PagedListSchema,
  PageQuerySchema,
} from '../../schemas/common.schemas.js';
import {
  createFile,
  discardStagedUpload,
  fileTooLarge,
  malformedBody,
  type StagedUpload,
  stageUpload,
  type UploadStream,
} from './files.commands.js';
import { fileBytes, findDownload, listFiles } from './files.reads.js';
import type { FileRow } from './files.records.js';
import { servedInline, type UploadFields } from './files.rules.js';
import { DownloadParamsSchema, FileSchema, UploadFormSchema, UploadResponseSchema } from './files.schemas.js';

/** Room for the multipart framing and the text fields around the file, in the early Content-Length check. */
const framingBytes = 64 * 1024;
const textFields = new Set<keyof UploadFields>(['filename', 'size', 'description']);
const isTextField = (name: string): name is keyof UploadFields => textFields.has(name as keyof UploadFields);

const description = [
  'multipart/form-data with the parts `file` (the bytes; required), `filename` (1-255 characters with its extension; required),',
  '`size` (bytes, at least 1, equal to what is sent; required) and `description` (alt text, at most 1000 characters; answered as `title`).',
  "The mimetype is detected from the file's bytes. Larger than FILES_MAX_MB: 413 (before the body is read when Content-Length says so).",
  "The answer's `url` serves the file publicly, without a key. See docs/files.md.",
].join(' ');

/** Reads the multipart parts: the file streamed into staging, the text fields kept. */
async function readUpload(
  request: FastifyRequest,
  stage: (file: StagedUploadStream) => Promise<StagedUpload>,
): Promise<{ fields: UploadFields; staged: StagedUpload | undefined }> {
  const fields: UploadFields = {};
  let staged: StagedUpload | undefined;
  const parts = request.parts()[Symbol.asyncIterator]();
  for (;;) {
    // The parser's failures are the body's; what staging throws (the database) is not.
    const next = await parts.next().catch((error: unknown) => {
      throw malformedBody(partsError(error));
    });
    if (next.done) break;
    const part = next.value;
    if (part.type === 'file') {
      if (part.fieldname !== 'file')
        throw validationFailed(`body.${part.fieldname}`, 'is not a part of an upload (file, filename, size, description)');
      staged = await stage(part.file);
    } else {
      if (!isTextField(part.fieldname))
        throw validationFailed(`body.${part.fieldname}`, 'is not a part of an upload (file, filename, size, description)');
      if (part.valueTruncated) throw validationFailed(`body.${part.fieldname}`, 'is too long');
      fields[part.fieldname] = String(part.value);
    }
  }
  return { fields, staged };
}

/** The multipart parser's refusals of a body with more parts than an upload has, as the 400 they are. */
function partsError(error: unknown): unknown {
  const code = (error as { code?: string }).code;
  if (code === 'FST_FILES_LIMIT') return validationFailed('body.file', 'only one file per upload');
  if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT')
    return validationFailed('body', 'an upload has the parts file, filename, size and description, each once');
  return error;
}

type StagedUploadStream = UploadStream & Readable;

/** POST /admin/v0/files: a public file of the community (docs/files.md). */
export const filesRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { services }) => {
  const { maxBytes } = services.config.files;
  // Only this plugin's routes parse multipart. One file; text parts small (a filename, a size, alt text).
  await app.register(multipart, {
    limits: { fileSize: maxBytes, files: 1, fields: 3, parts: 4, fieldSize: 16 * 1024, headerPairs: 20 },
  });

  // --- console-api (issue 39): the files list ---
  app.get(
    '/admin/v0/files',
    {
      config: { operation: 'files.list' },
      schema: {
        tags: ['Files', 'extension'],
        operationId: 'listFiles',
        summary: "List the community's uploaded files",
        description:
          'Extension. Newest first (ties by id), paged, with exact totals; each file as the upload answered it, with its public URL (never its bytes).',
        querystring: PageQuerySchema('Files'),
        response: { 200: Type.Object({ success: Type.Literal(true), data: PagedListSchema(FileSchema) }), ...errorResponses(400) },
      },
    },
    async (request) => ({
      success: true as const,
      data: await listFiles(
        services.database.db,
        principalOf(request).communityId,
        request.query.page,
        request.query.per_page,
        services.publicBaseUrl(),
      ),
    }),
  );
  // --- end console-api ---

  app.post(
    '/admin/v0/files',
    {
      config: {
        operation: 'files.upload',
        bodyTypes: ['multipart'],
        idempotencyInHandler: true,
        documentedMultipartBody: UploadFormSchema,
      },
      schema: {
        tags: ['Files'],
        summary: 'Upload a public file',
        description,
        headers: IdempotencyHeaders,
        response: { 201: UploadResponseSchema, ...errorResponses(...idempotentErrorStatuses, 413, 415) },
      },
      // After the key is checked, before any of the body is read: a declared length over the limit is refused at once.
      onRequest: (request, reply, done) => {
        const declared = Number(request.headers['content-length'] ?? 0);
        if (declared > maxBytes + framingBytes) {
          reply.header('connection', 'close');
          done(fileTooLarge(maxBytes));
          return;
        }
        done();
      },
    },
    async (request, reply) => {
      let staged: StagedUpload | undefined;
      const stage = async (file: StagedUploadStream) => {
        if (staged) throw validationFailed('body.file', 'only one file per upload');
        // Past the limit the parser drops the rest of the file but would wait for its end: stop at once instead.
        file.once('limit', () => file.destroy(fileTooLarge(maxBytes)));
        staged = await stageUpload(services, { stream: file, maxBytes });
        return staged;
      };
      let fields: UploadFields;
      try {
        ({ fields } = await readUpload(request, stage));
        // The same upload again (same bytes and fields) under the same key replays the first answer.
        const identity = { ...fields, sha256: staged?.sha256 ?? null, bytes: staged?.size ?? null };
        if (request.claimIdempotencyKey && (await request.claimIdempotencyKey(identity))) {
          if (staged) await discardStagedUpload(services, staged);
          return reply;
        }
      } catch (error) {
        // The rest of the body is not read: close the connection after the answer.
        reply.header('connection', 'close');
        if (staged) await discardStagedUpload(services, staged);
        throw partsError(error);
      }
      const file = await createFile(commandContext(request, services), { staged, fields, baseUrl: services.publicBaseUrl() });
      return reply
        .code(201)
        .header('location', file.url)
        .send({ success: true as const, data: file });
    },
  );
};

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
      const bytes = request.method === 'HEAD' ? [] : fileBytes(db, services.database.engine, file, start, end);
      return reply.send(Readable.from(bytes, { objectMode: false }));
    },
  );
};
