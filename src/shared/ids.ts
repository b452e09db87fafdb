import { randomFillSync, randomUUID } from 'node:crypto';

const alphanumeric = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/*
 * Random bytes drawn 4 KiB at a time: a randomBytes call per id cost ~15 µs, more than the rest of
 * recording a webhook event (randomUUID keeps a similar cache inside Node for the same reason).
 */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function nextRandomByte(): number {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++] as number;
}

/** A random id of `length` characters of [0-9a-zA-Z] (calendar event ids are 12). */
export function randomAlphanumericId(length = 12): string {
  let id = '';
  while (id.length < length) {
    const byte = nextRandomByte();
    // 62 does not divide 256: reject bytes >= 248 so every character is equally likely.
    if (byte < 248) id += alphanumeric[byte % 62];
  }
  return id;
}

/** A random UUID version 4. */
export const newUuid = (): string => randomUUID();

/**
 * The one rule for UUIDs in paths, bodies and import files: canonical form, any version, either
 * letter case (a `urn:uuid:` prefix, which the JSON Schema `uuid` format admits, is refused).
 */
export const uuidPatternSource = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const uuidPattern = new RegExp(uuidPatternSource);

/** True for any UUID in canonical form. */
export const isUuid = (value: string): boolean => uuidPattern.test(value);

/** Emails are matched case-insensitively after trimming. */
export const normaliseEmail = (email: string): string => email.trim().toLowerCase();
