import { checkTimestamps, recordParser } from '../../import/import-section.js';
import { refuse } from '../../shared/failures.js';
import { isUuid, normaliseEmail } from '../../shared/ids.js';
import { type ProfileImport, ProfileImportSchema } from './profiles.schemas.js';

const parseShape = recordParser<ProfileImport>(ProfileImportSchema);

/** Checks a profile record (the import file's, or one built from a chat user); returns it typed or refuses it (Refused, paths in the record). */
export const parseProfileRecord = (record: unknown): ProfileImport => checkTimestamps(parseShape(record), ['created_at']);

/** The ways a request may name a person: exactly one of them (a group add's `user`, an award's recipient). */
export interface UserIdentifierFields {
  chat_user_id?: string;
  email?: string;
  profile_id?: string;
}

const identifierFields = ['chat_user_id', 'email', 'profile_id'] as const;

/**
 * The one identifier a request names a user by (a group-add's `user`, an award's `recipient` and
 * `sender`: `at` is the field, in the command's input); refuses (Refused at `at`) when there are none or several.
 */
export function userIdentifier(
  user: UserIdentifierFields,
  at: readonly string[] = ['user'],
): { column: 'id' | 'chat_user_id' | 'email_norm'; value: string } {
  const given = identifierFields.filter((field) => user[field] !== undefined);
  if (given.length !== 1) {
    const found = given.length === 0 ? 'none was given' : `got ${given.join(' and ')}`;
    throw refuse(at, 'one_identifier', `must hold exactly one of chat_user_id, email, profile_id (${found})`);
  }
  const field = given[0] as (typeof identifierFields)[number];
  const value = user[field] as string;
  if (field === 'email') {
    // Profiles without an e-mail are stored with "": a blank e-mail must not find one of them.
    const emailNorm = normaliseEmail(value);
    if (emailNorm === '') throw refuse([...at, 'email'], 'blank', 'must not be blank');
    return { column: 'email_norm', value: emailNorm };
  }
  // Profile ids are stored lower-case; a UUID is the same id in any letter case.
  if (field === 'profile_id') return { column: 'id', value: isUuid(value) ? value.toLowerCase() : value };
  return { column: 'chat_user_id', value };
}
