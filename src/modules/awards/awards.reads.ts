import { type PageMeta, pageOf } from '../../schemas/json-text.js';
import { formatJsonTimestamp } from '../../shared/timestamps.js';
import type { AwardDeps } from './awards.commands.js';
import { selectAwardsPageWithCounts, selectAwardsWithCounts } from './awards.queries.js';
import type { AwardView } from './awards.schemas.js';

/** `award list`: the community's awards, oldest first, with how many members hold each. */
export async function listAwards(deps: Pick<AwardDeps, 'database'>, communityId: string): Promise<AwardView[]> {
  const rows = await selectAwardsWithCounts(deps.database.db, communityId);
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    description: row.description,
    emoji: row.emoji,
    assigned_count: Number(row.assigned_count),
    created_at: formatJsonTimestamp(row.created_at),
  }));
}

/** `GET /awards`: a page of the community's awards, oldest first, each with how many members hold it (as `award list`). */
export async function listAwardsPage(
  deps: Pick<AwardDeps, 'database'>,
  communityId: string,
  page: number,
  perPage: number,
): Promise<PageMeta & { records: AwardView[] }> {
  const { rows, total } = await selectAwardsPageWithCounts(deps.database.db, communityId, perPage, page * perPage);
  const records = rows.map((row) => ({
    id: row.id,
    name: row.name,
    description: row.description,
    emoji: row.emoji,
    assigned_count: Number(row.assigned_count ?? 0),
    created_at: formatJsonTimestamp(row.created_at),
  }));
  return pageOf(page, perPage, total, records);
}
