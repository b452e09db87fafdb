import type { ImportSection } from '../../import/import-section.js';
import { assertTimestamps, assertUniqueIds, ImportError, schemaParser } from '../../import/import-section.js';
import type { EpochMicros } from '../../shared/time.js';
import { parseTimestamp } from '../../shared/timestamps.js';
import { selectExistingProfileIds } from '../profiles/profiles.queries.js';
import { replaceAssignments, upsertAwards } from './awards.queries.js';
import { type AwardImport, AwardImportSchema } from './awards.schemas.js';

const section = 'awards';
const parseShape = schemaParser<AwardImport>(section, AwardImportSchema);

/** A stored instant of a timestamp the file gives, or the import's time. */
const instant = (value: string | null | undefined, now: EpochMicros): EpochMicros => (value ? (parseTimestamp(value) ?? now) : now);

function parseAward(record: unknown, index: number): AwardImport {
  const award = assertTimestamps(section, index, parseShape(record, index), ['created_at', 'updated_at']);
  for (const [i, assignment] of (award.assignments ?? []).entries())
    if (assignment.assigned_at && parseTimestamp(assignment.assigned_at) === undefined)
      throw new ImportError(section, index, `assignments[${i}].assigned_at`, 'must be an ISO 8601 date-time');
  return award;
}

/**
 * The `awards` section of the import file: each award and exactly the members listed as holding it
 * (their profiles must be in the community or the file). Loading sends no message and no webhook:
 * an import is a bulk load, not an event.
 */
export const awardsImportSection: ImportSection<AwardImport> = {
  name: section,
  parse: parseAward,
  async apply(tx, records, context) {
    const { communityId, now } = context;
    assertUniqueIds(section, records, (record) => record.id.toLowerCase());
    const referenced = records.flatMap((record) =>
      (record.assignments ?? []).flatMap((a) => [
        a.profile_id.toLowerCase(),
        ...(a.sender_profile_id ? [a.sender_profile_id.toLowerCase()] : []),
      ]),
    );
    const existing = await selectExistingProfileIds(tx, communityId, referenced);
    for (const [index, record] of records.entries()) {
      for (const [i, assignment] of (record.assignments ?? []).entries()) {
        for (const field of ['profile_id', 'sender_profile_id'] as const) {
          const id = assignment[field]?.toLowerCase();
          if (id && !existing.has(id))
            throw new ImportError(section, index, `assignments[${i}].${field}`, `no profile "${id}" in this community or this file`);
        }
      }
      const holders = new Set<string>();
      for (const [i, assignment] of (record.assignments ?? []).entries()) {
        const id = assignment.profile_id.toLowerCase();
        if (holders.has(id)) throw new ImportError(section, index, `assignments[${i}].profile_id`, `"${id}" holds this award twice`);
        holders.add(id);
      }
    }
    await upsertAwards(
      tx,
      records.map((record) => ({
        community_id: communityId,
        id: record.id.toLowerCase(),
        name: record.name,
        description: record.description ?? null,
        emoji: record.emoji ?? null,
        created_at: instant(record.created_at, now),
        updated_at: instant(record.updated_at, now),
      })),
    );
    for (const record of records) {
      const awardId = record.id.toLowerCase();
      await replaceAssignments(
        tx,
        communityId,
        awardId,
        (record.assignments ?? []).map((a) => ({
          community_id: communityId,
          award_id: awardId,
          profile_id: a.profile_id.toLowerCase(),
          sender_profile_id: a.sender_profile_id?.toLowerCase() ?? null,
          send_anonymously: a.send_anonymously === true ? 1 : 0,
          assigned_at: instant(a.assigned_at, now),
        })),
      );
    }
    return records.length;
  },
};
