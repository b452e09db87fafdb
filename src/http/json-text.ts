import { Type } from '@sinclair/typebox';
import fastJson from 'fast-json-stringify';
import type { FastifyReply } from 'fastify';
import { compiledOnFirstCall } from '../shared/compiled-on-first-call.js';
import { PagedListSchema } from './common.schemas.js';

/**
 * Sends a body that is already JSON text (or its UTF-8 bytes) as it is: Fastify serialises nothing
 * when the content type is JSON and the payload a string or a Buffer. The text must come from the
 * response schema (a serializer compiled from it, or records checked against it: see
 * docs/performance.md, "Spliced JSON"), so the schema stays the one source of the bytes.
 */
export function sendJsonText(reply: FastifyReply, body: string | Buffer): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(body);
}

/**
 * Sends bytes that may still be coming (a cache miss): synchronously when they are already there,
 * so a handler returning this costs no promise on a hit.
 */
export function sendJsonBytes(reply: FastifyReply, body: Buffer | Promise<Buffer>): void | Promise<void> {
  if (Buffer.isBuffer(body)) {
    sendJsonText(reply, body);
    return;
  }
  return body.then((bytes) => {
    sendJsonText(reply, bytes);
  });
}

/** The route's own response serialiser applied to a 200 payload, as text. */
export function serializeJson(reply: FastifyReply, payload: unknown): string {
  const body = reply.serialize(payload);
  return typeof body === 'string' ? body : Buffer.from(body instanceof ArrayBuffer ? new Uint8Array(body) : body).toString('utf8');
}

/** `{success: true, data}` around one record's JSON text. */
export const dataEnvelope = (recordJson: string): string => `{"success":true,"data":${recordJson}}`;

/** The paged list envelope without its records (page, per_page, count, totals, has_next). */
export interface PageMeta {
  page: number;
  per_page: number;
  count: number;
  total_records: number;
  total_pages: number;
  has_next: boolean;
}

// The envelope of every list, serialised by its schema with no records; the records' JSON text
// goes where the empty array is.
const serializeEmptyPage = compiledOnFirstCall(() =>
  fastJson(Type.Object({ success: Type.Literal(true), data: PagedListSchema(Type.Unknown()) })),
);
const emptyRecordsTail = '"records":[]}}';

/** `{success: true, data: {page, ..., records}}` around records' JSON texts. */
export function pagedListEnvelope(meta: PageMeta, records: readonly string[]): string {
  const empty = serializeEmptyPage({ success: true, data: { ...meta, records: [] } });
  if (!empty.endsWith(emptyRecordsTail)) throw new Error('the paged list envelope no longer ends with its records');
  return `${empty.slice(0, -emptyRecordsTail.length)}"records":[${records.join(',')}]}}`;
}
