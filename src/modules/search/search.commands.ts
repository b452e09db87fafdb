import { type WriteDeps, writeCommunityData } from '../../write-path/write-community-data.js';
import { rebuildSearchIndex } from './queries/entries.js';

/** Rebuilds the community's search index from its posts (`community-admin search reindex`); returns how many posts it holds. */
export async function reindexCommunity(deps: WriteDeps, communityId: string): Promise<number> {
  return writeCommunityData(deps, communityId, async (w) => {
    const indexed = await rebuildSearchIndex(w.tx, communityId);
    w.touch('posts');
    return indexed;
  });
}
