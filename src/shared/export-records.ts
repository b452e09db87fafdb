import type { EpochMicros } from './time.js';
import { formatJsonTimestamp } from './timestamps.js';

/*
 * What every module's export (src/modules/<resource>/<resource>.export.ts) builds its records with.
 * Stored rows → records of the import file. Every record is built from what is stored, never
 * from an API answer: derived fields (hosts, author, references, counts) are left to the import,
 * which computes them again. Fields that live in a record's `doc` JSON are copied as they are, so a
 * field added to a doc (and to its import schema) travels without a change here.
 */

/** A stored instant (epoch µs) as the import file spells it: PostgreSQL's JSON spelling, to the microsecond. */
export const exportInstant = (value: EpochMicros): string => formatJsonTimestamp(value);

/** A stored optional id ("" when there is none) as the import spells "none": null. */
export const idOrNull = (value: unknown): unknown => (value === '' ? null : value);

/** A stored `doc` JSON's fields, copied into a record as they are. */
export const parseDoc = (doc: string): Record<string, unknown> => JSON.parse(doc) as Record<string, unknown>;

/** Byte order of UTF-16 strings that hold ASCII ids (what both engines' id order gives). */
export const byteOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
