import type { Selectable } from 'kysely';
import type { ProfilesTable } from '../../db/schema.js';
import { idOrNull, parseDoc } from '../../shared/export-records.js';

/** The stored columns this record is built from. */
export type ProfileExportRow = Pick<Selectable<ProfilesTable>, 'id' | 'doc'>;

/** A `profiles` record: the stored profile (which holds its own created_at). */
export function profileRecord(row: ProfileExportRow): Record<string, unknown> {
  const profile = parseDoc(row.doc);
  return { ...profile, chat_user_id: idOrNull(profile.chat_user_id) };
}
