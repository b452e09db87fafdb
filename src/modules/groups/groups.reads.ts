import { type PageMeta, pageOf } from '../../schemas/json-text.js';
import type { DatabaseDeps } from '../../shared/service-deps.js';
import { epochMicros } from '../../shared/time.js';
import { formatJsonTimestamp } from '../../shared/timestamps.js';
import { selectGroupsPage } from './groups.queries.js';
import type { GroupRecord } from './groups.schemas.js';

/** `GET /groups`: a page of the community's groups by name, each with its member count (the console's "add to a group"). */
export async function listGroups(
  { database }: DatabaseDeps,
  communityId: string,
  page: number,
  perPage: number,
): Promise<PageMeta & { records: GroupRecord[] }> {
  const { rows, total } = await selectGroupsPage(database.db, communityId, perPage, page * perPage);
  const records = rows.map((row) => ({
    id: row.id,
    name: row.name,
    member_count: Number(row.member_count),
    created_at: formatJsonTimestamp(epochMicros(Number(row.created_at))),
  }));
  return pageOf(page, perPage, total, records);
}
