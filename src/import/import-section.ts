import type { TSchema } from '@sinclair/typebox';
import type { ValidateFunction } from 'ajv';
import { UserInputError } from '../errors.js';
import { createAjv } from '../schemas/ajv.js';
import { type Failure, formatPath, Refused, refuse } from '../shared/failures.js';
import { parseTimestamp, timestampRule } from '../shared/timestamps.js';
import type { TxContext } from '../write-path/command-context.js';

/** A problem in the import file, named by section, index and field. Nothing of the file is kept. */
export class ImportError extends UserInputError {
  constructor(section: string, index: number | null, field: string | null, problem: string) {
    super(`${section}${index === null ? '' : `[${index}]`}${field ? `.${field}` : ''}: ${problem}`);
    this.name = 'ImportError';
  }
}

/**
 * A failure of an import record as the import prints it: `<section>[<index>].<field>: <message>`.
 * A failure whose path starts with a number names the record by its index in the section.
 */
export function importErrorOf(section: string, failure: Failure): ImportError {
  const [first, ...rest] = failure.path;
  if (typeof first === 'number') return new ImportError(section, first, formatPath(rest) || null, failure.message);
  return new ImportError(section, null, formatPath(failure.path) || null, failure.message);
}

/** A refusal of a section's records as the import's error (its first failure); any other error as it is. */
export function asImportError(section: string, error: unknown): unknown {
  if (!(error instanceof Refused)) return error;
  const [failure] = error.failures;
  return failure ? importErrorOf(section, failure) : error;
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

/**
 * What every section's apply step gets: the import's write (its transaction, community, and `now`,
 * the import time in epoch µs: default for every timestamp the file leaves out), as a TxContext
 * (src/write-path/command-context.ts), the context its commands take.
 */
export interface ImportContext extends TxContext {
  /** The base of uploaded files' URLs (an event's cover_image_file_id). */
  readonly publicBaseUrl: string;
}

/** One section of the import file (`profiles`, `calendar_events`, ...). */
export interface ImportSection<T> {
  name: string;
  /** Checks one record's shape; returns it typed, or throws an ImportError or Refused (paths in the record). */
  parse(record: unknown, index: number): T;
  /**
   * Writes the section's records (upsert by id) inside the import's transaction; returns how many.
   * Throws an ImportError or Refused (each path starting with the record's index in `records`).
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

/** Runs a check, a refusal of it thrown as the import's error of the section. */
function asImportCheck<T>(section: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    throw asImportError(section, error);
  }
}

/** A parse function for a section from its record schema: its failure thrown as an ImportError. */
export function schemaParser<T>(section: string, schema: TSchema): (record: unknown, index: number) => T {
  const parse = recordParser<T>(schema);
  return (record, index) => asImportCheck(section, () => atIndex(index, () => parse(record)));
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

/** Throws an ImportError for the first id that appears twice in a section. */
export function assertUniqueIds<T>(section: string, records: T[], idOf: (record: T) => string, field = 'id'): void {
  asImportCheck(section, () => refuseDuplicateIds(records, idOf, field));
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

/** checkTimestamps of the record at `index` of a section, its refusal thrown as an ImportError. */
export function assertTimestamps<T extends object>(section: string, index: number, record: T, fields: readonly (keyof T & string)[]): T {
  return asImportCheck(section, () => atIndex(index, () => checkTimestamps(record, fields)));
}
