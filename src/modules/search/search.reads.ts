import { cachedRead } from '../../caching/cached-read.js';
import type { Database } from '../../db/database.js';
import type { CostMeter } from '../../routing/request-context.js';
import { type PageMeta, pagedListEnvelope, pageOf } from '../../schemas/json-text.js';
import { renderPageRows } from '../posts/posts.reads.js';
import { type SearchFilters, selectSearchHits } from './queries/hits.js';
import { costOfSearch, type ParsedQuery, parseSearchQuery, searchText } from './search.rules.js';
import type { SearchQuery } from './search.schemas.js';

/** A page of search results: the paged list envelope, with each post record as its JSON text. */
export async function searchPosts(
  database: Database,
  communityId: string,
  query: ParsedQuery,
  filters: SearchFilters,
  page: number,
  perPage: number,
  offLoop = false,
): Promise<PageMeta & { records: string[] }> {
  const hits = await selectSearchHits(database.db, communityId, query, filters, perPage, page * perPage, offLoop);
  return pageOf(page, perPage, hits.total, await renderPageRows(database, communityId, hits.rows));
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
    );
    meter?.record(costOfSearch(meta.total_records));
    return { body: pagedListEnvelope(meta, records) };
  },
});
