import type { TSchema } from '@sinclair/typebox';
import type { ValidateFunction } from 'ajv';
import type { Tx } from '../db/database.js';
import { UserInputError } from '../errors.js';
import { createAjv } from '../schemas/ajv.js';
import type { EpochMicros } from '../shared/time.js';
import { parseTimestamp, timestampRule } from '../shared/timestamps.js';

/** A problem in the import file, named by section, index and field. Nothing of the file is kept. */
export class ImportError extends UserInputError {
  constructor(section: string, index: number | null, field: string | null, problem: string) {
    super(`${section}${index === null ? '' : `[${index}]`}${field ? `.${field}` : ''}: ${problem}`);
    this.name = 'ImportError';
  }
}

/** What every section's apply step gets. */
export interface ImportContext {
  communityId: string;
  /** The import time (epoch µs): default for every timestamp the file leaves out. */
  now: EpochMicros;
  /** The base of uploaded files' URLs (an event's cover_image_file_id); absent: the configured default's. */
  publicBaseUrl?: string;
}

/** One section of the import file (`profiles`, `calendar_events`, ...). */
export interface ImportSection<T> {
  name: string;
  /** Checks one record's shape; returns it typed or throws an ImportError. */
  parse(record: unknown, index: number): T;
  /** Writes the section's records (upsert by id) inside the import's transaction; returns how many. */
  apply(tx: Tx, records: T[], context: ImportContext): Promise<number>;
}

const ajv = createAjv({ coerce: false, useDefaults: false });

/** A parse function for a section from its record schema (unknown fields are refused by the schema). */
export function schemaParser<T>(section: string, schema: TSchema): (record: unknown, index: number) => T {
  // Compiled on first use: the server loads every section but never imports (start-up time).
  let compiled: ValidateFunction | undefined;
  return (record, index) => {
    compiled ??= ajv.compile(schema);
    const validate = compiled;
    if (validate(record)) return record as T;
    const error = validate.errors?.[0];
    const path = (error?.instancePath ?? '')
      .split('/')
      .filter(Boolean)
      .map((segment, i) => (/^\d+$/.test(segment) ? `[${segment}]` : `${i === 0 ? '' : '.'}${segment}`))
      .join('');
    const params = (error?.params ?? {}) as Record<string, unknown>;
    if (error?.keyword === 'required')
      throw new ImportError(section, index, joinField(path, String(params.missingProperty)), 'is required');
    if (error?.keyword === 'additionalProperties')
      throw new ImportError(section, index, joinField(path, String(params.additionalProperty)), 'is not a known field');
    throw new ImportError(section, index, path || null, error?.message ?? 'is invalid');
  };
}

const joinField = (path: string, field: string): string => (path ? `${path}.${field}` : field);

/** Throws an ImportError for the first id that appears twice in a section. */
export function assertUniqueIds<T>(section: string, records: T[], idOf: (record: T) => string, field = 'id'): void {
  const seen = new Set<string>();
  records.forEach((record, index) => {
    const id = idOf(record);
    if (seen.has(id)) throw new ImportError(section, index, field, `duplicate id "${id}" in this file`);
    seen.add(id);
  });
}

/**
 * Refuses the first of `fields` of a parsed record that is a text naming no instant (out of the
 * years 1700-2250, which the schema's date-time format lets through), naming it; returns the record.
 */
export function assertTimestamps<T extends object>(section: string, index: number, record: T, fields: readonly (keyof T & string)[]): T {
  for (const field of fields) {
    const value = record[field];
    if (typeof value === 'string' && value !== '' && parseTimestamp(value) === undefined)
      throw new ImportError(section, index, field, timestampRule);
  }
  return record;
}
