import { isUniqueViolation } from '../../db/database.js';
import type { ImportSection } from '../../import/import-section.js';
import { checkTimestamps, recordParser, refuseDuplicateIds } from '../../import/import-section.js';
import { refuse } from '../../shared/failures.js';
import { normaliseEmail } from '../../shared/ids.js';
import type { EpochMicros } from '../../shared/time.js';
import { parseTimestamp } from '../../shared/timestamps.js';
import { selectExistingProfileIds } from '../profiles/profiles.queries.js';
import { type MemberRow, selectMemberCreatedAt, selectMemberIdsByEmails, upsertMembersById } from './members.queries.js';
import { splitFullName } from './members.rules.js';
import { type MemberImport, MemberImportSchema } from './members.schemas.js';

/** Epoch µs of a timestamp the file gives (checked by parse), or undefined. */
const givenInstant = (value: string | null | undefined): EpochMicros | undefined => (value ? parseTimestamp(value) : undefined);
const parseShape = recordParser<MemberImport>(MemberImportSchema);

/**
 * The row of a record. Timestamps the file gives are kept (an export carries them); created_at
 * the file leaves out is the stored one, else the import time; updated_at left out is the import time.
 */
function rowOf(record: MemberImport, now: EpochMicros, storedCreatedAt: EpochMicros | undefined): MemberRow {
  const fullName = record.full_name.trim();
  return {
    id: record.id.toLowerCase(),
    email: record.email.trim(),
    email_norm: normaliseEmail(record.email),
    full_name: fullName,
    preferred_name: record.preferred_name ?? splitFullName(fullName).firstName,
    avatar_url_original: record.avatar_url_original || null,
    chat_profile_id: record.chat_profile_id ? record.chat_profile_id.toLowerCase() : null,
    state: record.state ?? 'active',
    created_at: givenInstant(record.created_at) ?? storedCreatedAt ?? now,
    updated_at: givenInstant(record.updated_at) ?? now,
  };
}

/** The `members` section of the import file (after `profiles`, which chat_profile_id refers to). */
export const membersImportSection: ImportSection<MemberImport> = {
  name: 'members',
  parse: (record) => checkTimestamps(parseShape(record), ['created_at', 'updated_at']),
  async apply(context, records) {
    const { tx } = context;
    const stored = await selectMemberCreatedAt(
      tx,
      context.communityId,
      records.filter((r) => !r.created_at).map((r) => r.id.toLowerCase()),
    );
    const rows = records.map((record) => rowOf(record, context.now, stored.get(record.id.toLowerCase())));
    refuseDuplicateIds(rows, (row) => row.id);
    const emailsSeen = new Set<string>();
    rows.forEach((row, index) => {
      if (emailsSeen.has(row.email_norm))
        throw refuse([index, 'email'], 'duplicate', `"${row.email}" is given to another member of this file`);
      emailsSeen.add(row.email_norm);
    });

    const profileIds = await selectExistingProfileIds(
      tx,
      context.communityId,
      rows.flatMap((row) => (row.chat_profile_id ? [row.chat_profile_id] : [])),
    );
    rows.forEach((row, index) => {
      if (row.chat_profile_id && !profileIds.has(row.chat_profile_id)) {
        throw refuse([index, 'chat_profile_id'], 'unknown_reference', `no profile "${row.chat_profile_id}" in this community or this file`);
      }
    });

    // An email may move between members of the file, but not take over one held by a member the file leaves alone.
    const fileIds = new Set(rows.map((row) => row.id));
    const holders = await selectMemberIdsByEmails(
      tx,
      context.communityId,
      rows.map((row) => row.email_norm),
    );
    rows.forEach((row, index) => {
      const holder = holders.get(row.email_norm);
      if (holder !== undefined && holder !== row.id && !fileIds.has(holder)) {
        throw refuse([index, 'email'], 'taken', `"${row.email}" is already held by member "${holder}"`);
      }
    });

    try {
      await upsertMembersById(tx, context.communityId, rows);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      // Which records exchange is not known (the engine names no row): the failure is the section's.
      throw refuse(['email'], 'exchanged', 'members of this file exchange emails with each other; import the change in two steps');
    }
    return rows.length;
  },
};
