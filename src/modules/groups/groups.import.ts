import type { ImportSection } from '../../import/import-section.js';
import { checkTimestamps, recordParser, refuseDuplicateIds } from '../../import/import-section.js';
import { refuse } from '../../shared/failures.js';
import { parseTimestamp } from '../../shared/timestamps.js';
import { selectExistingProfileIds } from '../profiles/profiles.queries.js';
import { replaceGroupMembers, upsertGroups } from './groups.queries.js';
import { type GroupImport, GroupImportSchema } from './groups.schemas.js';

const parseShape = recordParser<GroupImport>(GroupImportSchema);

/** The `groups` section of the import file: a group and its members (profiles) exactly as listed. */
export const groupsImportSection: ImportSection<GroupImport> = {
  name: 'groups',
  parse: (record) => checkTimestamps(parseShape(record), ['created_at', 'updated_at']),
  async apply(context, records) {
    const { tx } = context;
    refuseDuplicateIds(records, (record) => record.id);
    const memberLists = records.map((record) => (record.member_profile_ids ?? []).map((id) => id.toLowerCase()));
    const existing = await selectExistingProfileIds(tx, context.communityId, memberLists.flat());
    memberLists.forEach((ids, index) => {
      const missing = ids.findIndex((id) => !existing.has(id));
      if (missing >= 0) {
        throw refuse(
          [index, 'member_profile_ids', missing],
          'unknown_reference',
          `no profile "${ids[missing]}" in this community or this file`,
        );
      }
    });
    await upsertGroups(
      tx,
      context.communityId,
      records.map((record) => ({
        id: record.id,
        name: record.name,
        // Given by an export: kept, so that a round trip changes nothing.
        created_at: record.created_at ? parseTimestamp(record.created_at) : undefined,
        updated_at: record.updated_at ? parseTimestamp(record.updated_at) : undefined,
      })),
      context.now,
    );
    for (const [index, record] of records.entries()) {
      await replaceGroupMembers(tx, context.communityId, record.id, memberLists[index] ?? [], context.now);
    }
    return records.length;
  },
};
