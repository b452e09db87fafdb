import type { TSchema } from '@sinclair/typebox';
import type { ValidateFunction } from 'ajv';
import type { Tx } from '../db/database.js';
import { createAjv } from '../schemas/ajv.js';
import { type Failure, Refused, refuse } from '../shared/failures.js';
import type { EpochMicros } from '../shared/time.js';
import { parseTimestamp, timestampRule } from '../shared/timestamps.js';

/**
 * The import's refusal of its file: one failure, its path in the document (`['profiles', 0,
 * 'created_at']`, `['file']` for the whole file), printed as `profiles[0].created_at: <message>`
 * (the Refused's own text). Nothing of the file is kept.
 */
export class ImportError extends Refused {
  constructor(failure: Failure) {
    super([{ path: failure.path, rule: failure.rule, message: failure.message }]);
    this.name = 'ImportError';
  }
}

/**
 * The import's one rendering of a refusal: a section's (its paths starting with the record's index
 * in the section) as the ImportError of its first failure, placed in the section; any other error as it is.
 */
export function asImportError(section: string, error: unknown): unknown {
  if (error instanceof ImportError || !(error instanceof Refused)) return error;
  const [failure] = error.failures;
  return failure ? new ImportError({ ...failure, path: [section, ...failure.path] }) : error;
}

/** Runs the check of one record of a list, placing its failures under the record's index. */
export function atIndex<T>(index: number, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof Refused)) throw error;
    throw new Refused(error.failures.map((failure) => ({ ...failure, path: [index, ...failure.path] })));
  }
}

/** One record parsed by a section as the first of its list in a file, refused as the import's error. */
export function asImportRecord<T>(section: ImportSection<T>, record: unknown): T {
  try {
    return atIndex(0, () => section.parse(record, 0));
  } catch (error) {
    throw asImportError(section.name, error);
  }
}

/**
 * What every section's apply step gets: the import's write (its transaction, community, and `now`,
 * the import time in epoch µs: default for every timestamp the file leaves out), as a TxContext
 * (src/write-path/command-context.ts), the context its commands take.
 */
export interface ImportContext {
  // A TxContext (src/write-path/command-context.ts), spelled out: the import sits below the write path.
  readonly tx: Tx;
  readonly communityId: string;
  readonly now: EpochMicros;
  /** The base of uploaded files' URLs (an event's cover_image_file_id). */
  readonly publicBaseUrl: string;
}

/** One section of the import file (`profiles`, `calendar_events`, ...). */
export interface ImportSection<T> {
  name: string;
  /** Checks one record's shape; returns it typed, or throws a Refused (paths in the record). */
  parse(record: unknown, index: number): T;
  /**
   * Writes the section's records (upsert by id) inside the import's transaction; returns how many.
   * Throws a Refused (each path starting with the record's index in `records`).
   */
  apply(context: ImportContext, records: T[]): Promise<number>;
}

const ajv = createAjv({ coerce: false, useDefaults: false });

/** `maxLength` as `max_length`: Ajv's keyword as the rule of a failure. */
const ruleOf = (keyword: string): string => keyword.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/**
 * A check of a record against its schema (unknown fields are refused by the schema): undefined
 * when it holds, else its first failure, the path in the record's own field names.
 */
export function schemaCheck(schema: TSchema): (record: unknown) => Failure | undefined {
  // Compiled on first use: the server loads every section but never imports (start-up time).
  let compiled: ValidateFunction | undefined;
  return (record) => {
    compiled ??= ajv.compile(schema);
    if (compiled(record)) return undefined;
    const error = compiled.errors?.[0];
    // Ajv's instance path: `/tags/0/id`; a segment of digits is an index.
    const path: (string | number)[] = (error?.instancePath ?? '')
      .split('/')
      .filter(Boolean)
      .map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment));
    const params = (error?.params ?? {}) as Record<string, unknown>;
    if (error?.keyword === 'required') return { path: [...path, String(params.missingProperty)], rule: 'required', message: 'is required' };
    if (error?.keyword === 'additionalProperties')
      return { path: [...path, String(params.additionalProperty)], rule: 'unknown_field', message: 'is not a known field' };
    return { path, rule: ruleOf(error?.keyword ?? 'invalid'), message: error?.message ?? 'is invalid' };
  };
}

/** A parse function from a record schema: its failure refused (Refused), the path in the record. */
export function recordParser<T>(schema: TSchema): (record: unknown) => T {
  const check = schemaCheck(schema);
  return (record) => {
    const failure = check(record);
    if (failure) throw new Refused([failure]);
    return record as T;
  };
}

/** The failure of the first record whose id appears earlier in the list, at `[index, field]`. */
export function duplicateIdFailure<T>(records: readonly T[], idOf: (record: T) => string, field = 'id'): Failure | undefined {
  const seen = new Set<string>();
  for (const [index, record] of records.entries()) {
    const id = idOf(record);
    if (seen.has(id)) return { path: [index, field], rule: 'duplicate', message: `duplicate id "${id}" in this file` };
    seen.add(id);
  }
  return undefined;
}

/** Refuses the first id that appears twice in a section's records, at `[index, field]`. */
export function refuseDuplicateIds<T>(records: readonly T[], idOf: (record: T) => string, field = 'id'): void {
  const failure = duplicateIdFailure(records, idOf, field);
  if (failure) throw new Refused([failure]);
}

/**
 * Refuses the first of `fields` of a parsed record that is a text naming no instant (out of the
 * years 1700-2250, which the schema's date-time format lets through), at `[field]`; returns the record.
 */
export function checkTimestamps<T extends object>(record: T, fields: readonly (keyof T & string)[]): T {
  for (const field of fields) {
    const value = record[field];
    if (typeof value === 'string' && value !== '' && parseTimestamp(value) === undefined) throw refuse([field], 'timestamp', timestampRule);
  }
  return record;
}
