import { cachedRead } from '../../caching/cached-read.js';
import type { RankedListCache } from '../../caching/ranked-lists.js';
import type { Database } from '../../db/database.js';
import type { CostMeter } from '../../routing/request-context.js';
import { type PageMeta, pagedListEnvelope, pageOf } from '../../schemas/json-text.js';
import { selectPageRowsByIds } from '../posts/posts.queries.js';
import { renderPageRows } from '../posts/posts.reads.js';
import { type SearchFilters, selectRankedPostIds, selectSearchHits } from './queries/hits.js';
import { costOfSearch, type ParsedQuery, parseSearchQuery, searchText } from './search.rules.js';
import type { SearchQuery } from './search.schemas.js';

/** A page of search results: the paged list envelope, with each post record as its JSON text, and how many matches were ranked for it. */
export async function searchPosts(
  database: Database,
  communityId: string,
  query: ParsedQuery,
  filters: SearchFilters,
  page: number,
  perPage: number,
  offLoop = false,
  rankings?: RankedListCache,
): Promise<PageMeta & { records: string[]; ranked: number }> {
  if (rankings?.enabled && query.include.length > 0) {
    const answer = await searchRankedList(database, communityId, query, filters, page, perPage, offLoop, rankings);
    if (answer) return answer;
  }
  const hits = await selectSearchHits(database.db, communityId, query, filters, perPage, page * perPage, offLoop);
  return { ...pageOf(page, perPage, hits.total, await renderPageRows(database, communityId, hits.rows)), ranked: hits.total };
}

/**
 * A page cut from the query's whole ranked result, kept while the community's posts are unchanged
 * (src/caching/ranked-lists.ts): ranked once per query and data version, then each request reads only
 * its page's posts by id. Undefined when the page's posts changed after the list was read (a write
 * landed in between): the caller ranks that page in one statement as without the lists.
 */
async function searchRankedList(
  database: Database,
  communityId: string,
  query: ParsedQuery,
  filters: SearchFilters,
  page: number,
  perPage: number,
  offLoop: boolean,
  rankings: RankedListCache,
): Promise<(PageMeta & { records: string[]; ranked: number }) | undefined> {
  const key = JSON.stringify([query.include, query.exclude, filters.feedId ?? '', filters.authorProfileId ?? '']);
  const { list, ranked } = await rankings.lookup(database, communityId, 'posts_version', key, () =>
    selectRankedPostIds(database.db, communityId, query, filters, offLoop),
  );
  const ids = list.ids.slice(page * perPage, page * perPage + perPage);
  const rows = await selectPageRowsByIds(database.db, communityId, ids);
  // A deleted post, or (where the check is free: SQLite's commit watch) any commit since the list's version.
  if (rows.length !== ids.length) return undefined;
  if (database.engine === 'sqlite' && !(await rankings.current(database, communityId, 'posts_version', list))) return undefined;
  const records = await renderPageRows(database, communityId, rows);
  return { ...pageOf(page, perPage, list.ids.length, records), ranked: ranked ? list.ids.length : 0 };
}

const filtersOf = (query: SearchQuery): SearchFilters => ({
  feedId: query.feed_id?.toLowerCase(),
  authorProfileId: query.author_profile_id?.toLowerCase(),
});

/** What names one search's work, whatever the page asked of it: the cost meter's operation (the matches are ranked for every page). */
export function searchOperation(communityId: string, query: SearchQuery): string {
  const filters = filtersOf(query);
  return JSON.stringify([communityId, searchText(query.q), filters.feedId ?? '', filters.authorProfileId ?? '']);
}

/**
 * `GET /search`, cached like the posts lists: an answer holds until the community's posts (or their
 * authors, feeds) change. A render (not a cached answer) records its cost on the request's meter.
 */
export const readSearch = cachedRead({
  name: 'search',
  view: 'posts',
  key: (_now, query: SearchQuery, _meter: CostMeter | null) => {
    const filters = filtersOf(query);
    return JSON.stringify([searchText(query.q), query.page, query.per_page, filters.feedId ?? '', filters.authorProfileId ?? '']);
  },
  render: async (deps, communityId, _now, query: SearchQuery, meter: CostMeter | null) => {
    const parsed = parseSearchQuery(searchText(query.q));
    const { records, ...meta } = await searchPosts(
      deps.database,
      communityId,
      parsed,
      filtersOf(query),
      query.page,
      query.per_page,
      meter?.heavy ?? false,
      deps.rankings,
    );
    // A page cut from a kept ranking costs a page: one unit (costOfSearch(0)).
    const { ranked, ...pageMeta } = meta;
    meter?.record(costOfSearch(ranked));
    return { body: pagedListEnvelope(pageMeta, records) };
  },
});
