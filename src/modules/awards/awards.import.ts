import type { ImportSection } from '../../import/import-section.js';
import { checkTimestamps, recordParser, refuseDuplicateIds } from '../../import/import-section.js';
import { refuse } from '../../shared/failures.js';
import type { EpochMicros } from '../../shared/time.js';
import { parseTimestamp } from '../../shared/timestamps.js';
import { type AwardWithHolders, importAwards } from './awards.commands.js';
import { type AwardImport, AwardImportSchema } from './awards.schemas.js';

const section = 'awards';
const parseShape = recordParser<AwardImport>(AwardImportSchema);

/** A stored instant of a timestamp the file gives, or the import's time. */
const instant = (value: string | null | undefined, now: EpochMicros): EpochMicros => (value ? (parseTimestamp(value) ?? now) : now);

/** A record's shape and timestamps checked (paths in the record). */
function parseAward(record: unknown): AwardImport {
  const award = checkTimestamps(parseShape(record), ['created_at', 'updated_at']);
  for (const [i, assignment] of (award.assignments ?? []).entries())
    if (assignment.assigned_at && parseTimestamp(assignment.assigned_at) === undefined)
      throw refuse(['assignments', i, 'assigned_at'], 'timestamp', 'must be an ISO 8601 date-time');
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
    refuseDuplicateIds(records, (record) => record.id.toLowerCase());
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
    // Refused with paths starting at the record's index: the import prints `awards[<index>].<rest>: <message>`.
    await importAwards(context, awards);
    return records.length;
  },
};
