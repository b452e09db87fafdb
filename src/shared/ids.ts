import { randomBytes, randomUUID } from 'node:crypto';

const alphanumeric = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** A random id of `length` characters of [0-9a-zA-Z] (calendar event ids are 12). */
export function randomAlphanumericId(length = 12): string {
  const bytes = randomBytes(length * 2);
  let id = '';
  // 62 does not divide 256: reject bytes >= 248 so every character is equally likely.
  for (let i = 0; i < bytes.length && id.length < length; i++) {
    const byte = bytes[i] as number;
    if (byte < 248) id += alphanumeric[byte % 62];
  }
  return id.length === length ? id : randomAlphanumericId(length);
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
