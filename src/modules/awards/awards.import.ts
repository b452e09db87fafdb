import type { ImportSection } from '../../import/import-section.js';
import { asImportError, assertTimestamps, assertUniqueIds, ImportError, schemaParser } from '../../import/import-section.js';
import type { EpochMicros } from '../../shared/time.js';
import { parseTimestamp } from '../../shared/timestamps.js';
import { type AwardWithHolders, importAwards } from './awards.commands.js';
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
  async apply(context, records) {
    const { communityId, now } = context;
    assertUniqueIds(section, records, (record) => record.id.toLowerCase());
    const awards = records.map((record): AwardWithHolders => {
      const awardId = record.id.toLowerCase();
      return {
        award: {
          community_id: communityId,
          id: awardId,
          name: record.name,
          description: record.description ?? null,
          emoji: record.emoji ?? null,
          created_at: instant(record.created_at, now),
          updated_at: instant(record.updated_at, now),
        },
        holders: (record.assignments ?? []).map((a) => ({
          community_id: communityId,
          award_id: awardId,
          profile_id: a.profile_id.toLowerCase(),
          sender_profile_id: a.sender_profile_id?.toLowerCase() ?? null,
          send_anonymously: a.send_anonymously === true ? 1 : 0,
          assigned_at: instant(a.assigned_at, now),
        })),
      };
    });
    try {
      await importAwards(context, awards);
    } catch (error) {
      // Paths start at the record's index: `awards[<index>].<rest>: <message>`.
      throw asImportError(section, error);
    }
    return records.length;
  },
};
