import { Type } from '@sinclair/typebox';
import type { Insertable } from 'kysely';
import type { ActivitiesTable } from '../../db/schema.js';
import { type ImportSection, recordParser } from '../../import/import-section.js';
import { refuse } from '../../shared/failures.js';
import { epochMicros } from '../../shared/time.js';
import { formatJsonTimestamp, parseTimestamp } from '../../shared/timestamps.js';
import { activityExists, insertImportedActivities, selectChainHead, selectFirstActivity, setChainHead } from './activities.queries.js';
import { type ActivityRecord, canonicalText, chainHash } from './activities.records.js';
import { ActivitySchema } from './activities.schemas.js';

/*
 * The `activities` section of the import file: a community's log as the export wrote it, each record
 * as the API answers it with its predecessor's hash (`prev_hash`). Loaded unchanged, so that the
 * chain verifies in the community it is loaded into: every record's hash is checked against its
 * content and predecessor first (an edited file is refused), then the records take the places just
 * before the community's own first record (a community without records starts its chain with them).
 * The import's own `import.completed` then follows the community's head as any change's record does.
 */

export const ActivityImportSchema = Type.Composite(
  [ActivitySchema, Type.Object({ prev_hash: Type.String({ pattern: '^([0-9a-f]{64})?$' }) })],
  {
    additionalProperties: false,
  },
);

export type ActivityImport = ActivityRecord & { prev_hash: string };

const section = 'activities';
const parseShape = recordParser<ActivityImport>(ActivityImportSchema);

/** A record's shape and hash checked (paths in the record). */
function parseActivity(record: unknown): ActivityImport {
  return checkChain(parseShape(record));
}

/** A record's own hash against its content and predecessor hash (paths in the record). */
function checkChain(parsed: ActivityImport): ActivityImport {
  const { prev_hash: _prev, ...rest } = parsed;
  const at = parseTimestamp(parsed.occurred_at);
  if (at === undefined) throw refuse(['occurred_at'], 'timestamp', 'must be a timestamp');
  // Stored as an instant and answered in the one spelling its hash covers: another spelling of the
  // same instant would load and then fail `activity verify`.
  if (formatJsonTimestamp(at) !== parsed.occurred_at)
    throw refuse(['occurred_at'], 'timestamp', `must be spelled as the export writes it: ${formatJsonTimestamp(at)}`);
  if (chainHash(parsed.prev_hash, canonicalText(rest)) !== parsed.hash)
    throw refuse(['hash'], 'chain', 'does not match the record: it was changed after it was written');
  return parsed;
}

const jsonOrNull = (value: unknown): string | null => (value === null ? null : JSON.stringify(value));

export const activitiesImportSection: ImportSection<ActivityImport> = {
  name: section,
  parse: parseActivity,
  async apply({ tx, communityId }, records) {
    if (records.length === 0) return 0;
    for (const [index, record] of records.entries()) {
      const previous = records[index - 1];
      if (previous && record.prev_hash !== '' && record.prev_hash !== previous.hash)
        throw refuse([index, 'prev_hash'], 'chain', 'does not follow the record before it: a record of the log is missing');
    }
    const first = records[0] as ActivityImport;
    const last = records[records.length - 1] as ActivityImport;
    const present = [await activityExists(tx, communityId, first.id), await activityExists(tx, communityId, last.id)];
    // The same file again: its log is already there.
    if (present[0] && present[1]) return 0;
    if (present[0] || present[1]) throw refuse([], 'partial', 'Part of this activity log is already in the community and part is not.');
    const head = await selectChainHead(tx, communityId);
    const own = head ? await selectFirstActivity(tx, communityId) : undefined;
    if (head && (!own || own.prev_hash !== ''))
      throw refuse(
        [],
        'anchored',
        "The community's activity log no longer starts at its first record (retention removed the oldest): an imported log cannot be placed before it.",
      );
    // Just before the community's first record; from 1 in a community without records.
    const start = own ? Number(own.seq) - records.length : 1;
    const rows: Insertable<ActivitiesTable>[] = records.map((record, index) => ({
      community_id: communityId,
      seq: start + index,
      id: record.id,
      occurred_at: epochMicros(parseTimestamp(record.occurred_at) as number),
      action: record.action,
      actor_type: record.actor.type,
      actor_id: record.actor.id,
      actor_label: record.actor.label,
      target_type: record.target.type,
      target_id: record.target.id,
      target_name: record.target.name,
      context: jsonOrNull(record.context),
      changes: jsonOrNull(record.changes),
      metadata: jsonOrNull(record.metadata),
      prev_hash: record.prev_hash,
      hash: record.hash,
    }));
    for (let offset = 0; offset < rows.length; offset += 200) await insertImportedActivities(tx, rows.slice(offset, offset + 200));
    if (!head) await setChainHead(tx, communityId, { seq: start + records.length - 1, prev_hash: last.prev_hash, hash: last.hash });
    return records.length;
  },
};
