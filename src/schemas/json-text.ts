import { type Static, type TSchema, Type } from '@sinclair/typebox';
import fastJson from 'fast-json-stringify';
import { compiledOnFirstCall } from '../shared/compiled-on-first-call.js';
import { PagedListSchema } from './common.schemas.js';

/**
 * The JSON text of a schema's values, by fast-json-stringify, compiled on its first call. Typed from
 * the schema: the library types the serialiser of a schema it cannot narrow as taking and giving `any`.
 */
export function jsonSerializer<S extends TSchema>(schema: S): (value: Static<S>) => string {
  return compiledOnFirstCall(() => fastJson(schema) as (value: Static<S>) => string);
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

/** A page of `total` records, `perPage` at a time, holding `records`: the envelope every list answers. */
export function pageOf<R>(page: number, perPage: number, total: number, records: R[]): PageMeta & { records: R[] } {
  const totalPages = Math.ceil(total / perPage);
  return {
    page,
    per_page: perPage,
    count: records.length,
    total_records: total,
    total_pages: totalPages,
    has_next: page + 1 < totalPages,
    records,
  };
}

// The envelope of every list, serialised by its schema with no records; the records' JSON text
// goes where the empty array is.
const serializeEmptyPage = jsonSerializer(Type.Object({ success: Type.Literal(true), data: PagedListSchema(Type.Unknown()) }));
const emptyRecordsTail = '"records":[]}}';

/** `{success: true, data: {page, ..., records}}` around records' JSON texts. */
export function pagedListEnvelope(meta: PageMeta, records: readonly string[]): string {
  const empty = serializeEmptyPage({ success: true, data: { ...meta, records: [] } });
  if (!empty.endsWith(emptyRecordsTail)) throw new Error('the paged list envelope no longer ends with its records');
  return `${empty.slice(0, -emptyRecordsTail.length)}"records":[${records.join(',')}]}}`;
}
