import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import { idChunks } from '../../db/ordered-rows.js';
import type { AwardsTable } from '../../db/schema.js';
import { byteOrder, exportInstant } from '../../shared/export-records.js';
import { selectAssignmentsOfAwards } from './awards.queries.js';

/** The stored columns an `awards` record is built from. */
export type AwardExportRow = Pick<Selectable<AwardsTable>, 'id' | 'name' | 'description' | 'emoji' | 'created_at' | 'updated_at'>;

/** The `awards` records of a batch, each with its holders in byte order of profile id. */
export async function awardRecords(tx: Db, communityId: string, rows: readonly AwardExportRow[]): Promise<Record<string, unknown>[]> {
  const holders = new Map<string, Record<string, unknown>[]>();
  for (const ids of idChunks(rows.map((row) => row.id))) {
    const found = await selectAssignmentsOfAwards(tx, communityId, ids);
    for (const row of found) {
      const list = holders.get(row.award_id) ?? [];
      list.push({
        profile_id: row.profile_id,
        sender_profile_id: row.sender_profile_id,
        send_anonymously: Number(row.send_anonymously) === 1,
        assigned_at: exportInstant(row.assigned_at),
      });
      holders.set(row.award_id, list);
    }
  }
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    description: row.description,
    emoji: row.emoji,
    created_at: exportInstant(row.created_at),
    updated_at: exportInstant(row.updated_at),
    assignments: (holders.get(row.id) ?? []).sort((a, b) => byteOrder(String(a.profile_id), String(b.profile_id))),
  }));
}
