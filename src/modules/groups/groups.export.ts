import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { GroupsTable } from '../../db/schema.js';
import { byteOrder, exportInstant } from '../../shared/export-records.js';
import { selectGroupMemberProfileIds } from './groups.queries.js';

/** The stored columns this record is built from. */
export type GroupExportRow = Pick<Selectable<GroupsTable>, 'id' | 'name' | 'created_at' | 'updated_at'>;

/** The `groups` records of a batch, each with its members' profile ids in byte order. */
export async function groupRecords(tx: Db, communityId: string, rows: readonly GroupExportRow[]): Promise<Record<string, unknown>[]> {
  const members = await selectGroupMemberProfileIds(
    tx,
    communityId,
    rows.map((row) => row.id),
  );
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    member_profile_ids: (members.get(row.id) ?? []).sort(byteOrder),
    created_at: exportInstant(row.created_at),
    updated_at: exportInstant(row.updated_at),
  }));
}
