import { epochMicros } from '../../shared/time.js';
import { formatJsonTimestamp } from '../../shared/timestamps.js';
import type { AwardDeps } from './awards.commands.js';
import { selectAwardsWithCounts } from './awards.queries.js';
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
    created_at: formatJsonTimestamp(epochMicros(Number(row.created_at))),
  }));
}
