import type { Selectable } from 'kysely';
import type { MembersTable } from '../../db/schema.js';
import { exportInstant } from '../../shared/export-records.js';

/** The stored columns this record is built from. */
export type MemberExportRow = Pick<
  Selectable<MembersTable>,
  'id' | 'email' | 'full_name' | 'preferred_name' | 'avatar_url_original' | 'chat_profile_id' | 'state' | 'created_at' | 'updated_at'
>;

/** A `members` record, with its state and both timestamps. */
export function memberRecord(row: MemberExportRow): Record<string, unknown> {
  return {
    id: row.id,
    email: row.email,
    full_name: row.full_name,
    preferred_name: row.preferred_name,
    avatar_url_original: row.avatar_url_original,
    chat_profile_id: row.chat_profile_id,
    state: row.state,
    created_at: exportInstant(row.created_at),
    updated_at: exportInstant(row.updated_at),
  };
}
