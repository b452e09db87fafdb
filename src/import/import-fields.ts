import { type TSchema, Type } from '@sinclair/typebox';
import { blockFailures } from '../rich-text/index.js';
import { Uuid } from '../schemas/common.schemas.js';
import { type Failure, refuse } from '../shared/failures.js';
import { type EpochMicros, epochMicros } from '../shared/time.js';
import { parseTimestamp, timestampRule } from '../shared/timestamps.js';

/*
 * Field rules shared by the import sections (calendar events, feeds, posts). Exports from other systems
 * often write `null` for "no value", so an optional field may be absent or null, and both mean
 * "use the default".
 */

/** A UUID in canonical form: the API's own rule. */
export const ImportUuid = () => Uuid();

/** An optional import field that may also be null (null means the same as absent). */
export const Opt = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));

/** An optional free-text import field. */
export const OptText = (maxLength = 2048) => Opt(Type.String({ maxLength }));

/** An optional ISO 8601 timestamp import field. */
export const OptTimestamp = () => Opt(Type.String({ format: 'date-time', maxLength: 64 }));

/** The value, or the fallback when the file left it out (absent or null). */
export const orDefault = <T>(value: T | null | undefined, fallback: T): T => (value === undefined || value === null ? fallback : value);

/**
 * A text field the API answers `null` when the record has none: absent, null and "" are all
 * "no value" (an export written before these fields were nullable spelled it "").
 */
export const textOrNull = (value: string | null | undefined): string | null =>
  value === undefined || value === null || value === '' ? null : value;

/** Epoch microseconds of a timestamp field (already format-checked), or undefined when absent; refused at `path` when it names no instant. */
export function instantAt(value: string | null | undefined, path: Failure['path']): EpochMicros | undefined {
  if (value === undefined || value === null) return undefined;
  const us = parseTimestamp(value);
  if (us === undefined) throw refuse(path, 'timestamp', timestampRule);
  return us;
}

/** A URL slug of a label: lower case ASCII letters and digits joined by single dashes. */
export function slugify(label: string): string {
  return label
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 200);
}

/**
 * The first problem of rich text blocks at `path` that the response schema could not carry, as a
 * failure naming the element (`['description_chat_blocks', 0, 'elements', 1, 'type']`); undefined when there is none.
 */
export function blocksFailure(path: Failure['path'], blocks: unknown): Failure | undefined {
  return blockFailures(blocks, path)[0];
}

/** The failure of the first derived field of a record (`derived`: each derived field and what it is computed from). */
export function derivedFieldFailure(record: unknown, derived: Readonly<Record<string, string>>): Failure | undefined {
  if (typeof record !== 'object' || record === null) return undefined;
  for (const [field, from] of Object.entries(derived)) {
    if (Object.hasOwn(record, field)) return { path: [field], rule: 'derived', message: `is computed from ${from} and cannot be imported` };
  }
  return undefined;
}

/**
 * created_at and updated_at of an upserted record. A timestamp the file leaves out is the stored
 * one (so importing the same file twice changes nothing), else the import time; updated_at
 * moves to the import time only when the stored content actually changed.
 */
export function resolveStamps(
  given: { created_at: EpochMicros | undefined; updated_at: EpochMicros | undefined },
  stored: { created_at: EpochMicros; updated_at: EpochMicros; unchanged: boolean } | undefined,
  now: EpochMicros,
): { created_at: EpochMicros; updated_at: EpochMicros } {
  const created_at = given.created_at ?? stored?.created_at ?? now;
  const updated_at = given.updated_at ?? (stored?.unchanged ? stored.updated_at : epochMicros(Math.max(now, created_at)));
  return { created_at, updated_at };
}
