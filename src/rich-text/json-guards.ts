/** A plain JSON object: not null, not an array. */
export type JsonRecord = Record<string, unknown>;

/** True when the value is a non-null object that is not an array. */
export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The property as a string, or undefined when it is missing or of another type. */
export function readString(record: JsonRecord, key: string): string | undefined {
  const value = record[key];
  return typeof value === 'string' ? value : undefined;
}

/** The property as a non-empty string, or undefined. */
export function readNonEmptyString(record: JsonRecord, key: string): string | undefined {
  const value = readString(record, key);
  return value === undefined || value === '' ? undefined : value;
}

/** The `elements` property when it is an array, else undefined. */
export function readElements(record: JsonRecord): readonly unknown[] | undefined {
  const value = record.elements;
  return Array.isArray(value) ? value : undefined;
}

/**
 * How deep element arrays may nest: blocks are level 1, their elements level 2, inline
 * elements of a section level 3. The spec's deepest shape (block > list > section > inline)
 * is level 4, so 8 leaves room for unknown containers without letting input exhaust the stack.
 */
export const MAX_NESTING_DEPTH = 8;

/** Most element objects (blocks included) that one value may hold. */
export const MAX_ELEMENT_COUNT = 10_000;
