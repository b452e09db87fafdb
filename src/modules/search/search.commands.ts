import type { CommandContext, TxContext } from '../../write-path/command-context.js';
import { writeCommunityData } from '../../write-path/write-community-data.js';
import { selectPostRows, selectPostRowsAfter } from '../posts/posts.queries.js';
import {
  dropCommunityIndex,
  indexedAuthorName,
  indexPosts,
  markCommunityPaired,
  selectPostsWithStaleAuthorName,
} from './queries/entries.js';

/** Posts read per round when the whole index is built again. */
const postsPerRound = 2000;

/** Rebuilds the community's search index from its posts (`community-admin search reindex`); returns how many posts it holds. */
export async function reindexCommunity(ctx: CommandContext): Promise<number> {
  return writeCommunityData(ctx, ctx.communityId, async (w) => {
    const indexed = await rebuildSearchIndex(w);
    w.touch('posts');
    return indexed;
  });
}

/** Drops the community's index and builds it again from its posts, in the caller's transaction; returns how many posts were indexed. */
export async function rebuildSearchIndex(ctx: Pick<TxContext, 'tx' | 'communityId'>): Promise<number> {
  const { tx, communityId } = ctx;
  await dropCommunityIndex(tx, communityId);
  let indexed = 0;
  let after = '';
  for (;;) {
    const posts = await selectPostRowsAfter(tx, communityId, after, postsPerRound);
    // The community's entries were all dropped: none is looked up.
    await indexPosts(tx, communityId, posts, { created: new Set(posts.map((post) => post.id)) });
    indexed += posts.length;
    const last = posts.at(-1);
    if (!last || posts.length < postsPerRound) break;
    after = last.id;
  }
  // Every post now has its word pairs: searches may use them (from the next one, in every instance).
  await markCommunityPaired(tx, communityId);
  return indexed;
}

/**
 * Indexes again the posts of renamed authors (author names are searchable); `before`, the profiles'
 * stored JSON before the write. A profile that was not stored has no posts (a post's author must
 * exist, and profiles are never deleted); one whose name is unchanged has entries that carry it.
 */
export async function reindexAuthors(
  ctx: Pick<TxContext, 'tx' | 'communityId'>,
  { profiles, before }: { profiles: readonly { id: string; name: string }[]; before: ReadonlyMap<string, string> },
): Promise<void> {
  const { tx, communityId } = ctx;
  const renames = profiles.flatMap(({ id, name }) => {
    const doc = before.get(id);
    const indexedName = doc === undefined ? name : indexedAuthorName(doc);
    return indexedName === name ? [] : [{ id, name, indexedName }];
  });
  if (renames.length === 0) return;
  const stale = await selectPostsWithStaleAuthorName(tx, communityId, renames);
  if (stale.length === 0) return;
  await indexPosts(tx, communityId, [...(await selectPostRows(tx, communityId, stale)).values()]);
}
