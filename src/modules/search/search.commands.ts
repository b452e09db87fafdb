import type { Tx } from '../../db/database.js';
import { type WriteDeps, writeCommunityData } from '../../write-path/write-community-data.js';
import { selectPostRows, selectPostRowsAfter } from '../posts/posts.queries.js';
import { dropCommunityIndex, indexPosts, selectPostsWithStaleAuthorName } from './queries/entries.js';

/** Posts read per round when the whole index is built again. */
const postsPerRound = 2000;

/** Rebuilds the community's search index from its posts (`community-admin search reindex`); returns how many posts it holds. */
export async function reindexCommunity(deps: WriteDeps, communityId: string): Promise<number> {
  return writeCommunityData(deps, communityId, async (w) => {
    const indexed = await rebuildSearchIndex(w.tx, communityId);
    w.touch('posts');
    return indexed;
  });
}

/** Drops the community's index and builds it again from its posts, in the caller's transaction; returns how many posts were indexed. */
export async function rebuildSearchIndex(tx: Tx, communityId: string): Promise<number> {
  await dropCommunityIndex(tx, communityId);
  let indexed = 0;
  let after = '';
  for (;;) {
    const posts = await selectPostRowsAfter(tx, communityId, after, postsPerRound);
    // The community's entries were all dropped: none is looked up.
    await indexPosts(tx, communityId, posts, { created: new Set(posts.map((post) => post.id)) });
    indexed += posts.length;
    const last = posts.at(-1);
    if (!last || posts.length < postsPerRound) return indexed;
    after = last.id;
  }
}

/** Indexes again the posts of these profiles whose indexed author name is no longer the profile's (a rename: author names are searchable). */
export async function reindexAuthors(tx: Tx, communityId: string, profiles: readonly { id: string; name: string }[]): Promise<void> {
  const stale = await selectPostsWithStaleAuthorName(tx, communityId, profiles);
  if (stale.length === 0) return;
  await indexPosts(tx, communityId, [...(await selectPostRows(tx, communityId, stale)).values()]);
}
