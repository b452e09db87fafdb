import type { DatabaseDeps } from '../../../shared/service-deps.js';
import { requireCommunity } from '../../communities/communities.reads.js';
import { selectAllFeeds } from '../../feeds/feeds.queries.js';
import { type BoundFeedSummary, summaryOf } from '../records/bound-feeds.js';

/** The community's feeds, as `feed list` shows them. */
export async function listFeeds({ database }: DatabaseDeps, communityId: string): Promise<BoundFeedSummary[]> {
  await requireCommunity({ database }, communityId);
  const rows = await selectAllFeeds(database.db, communityId);
  return rows.map(summaryOf);
}
