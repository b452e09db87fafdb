import { cachedRead } from '../../caching/cached-read.js';
import type { Database } from '../../db/database.js';
import { type PageMeta, pagedListEnvelope, pageOf } from '../../schemas/json-text.js';
import { renderPageRows } from '../posts/posts.reads.js';
import { type SearchFilters, selectSearchHits } from './queries/hits.js';
import { type ParsedQuery, parseSearchQuery, searchText } from './search.rules.js';
import type { SearchQuery } from './search.schemas.js';

/** A page of search results: the paged list envelope, with each post record as its JSON text. */
export async function searchPosts(
  database: Database,
  communityId: string,
  query: ParsedQuery,
  filters: SearchFilters,
  page: number,
  perPage: number,
): Promise<PageMeta & { records: string[] }> {
  const hits = await selectSearchHits(database.db, communityId, query, filters, perPage, page * perPage);
  return pageOf(page, perPage, hits.total, await renderPageRows(database, communityId, hits.rows));
}

const filtersOf = (query: SearchQuery): SearchFilters => ({
  feedId: query.feed_id?.toLowerCase(),
  authorProfileId: query.author_profile_id?.toLowerCase(),
});

/** `GET /search`, cached like the posts lists: an answer holds until the community's posts (or their authors, feeds) change. */
export const readSearch = cachedRead({
  name: 'search',
  view: 'posts',
  key: (_now, query: SearchQuery) => {
    const filters = filtersOf(query);
    return JSON.stringify([searchText(query.q), query.page, query.per_page, filters.feedId ?? '', filters.authorProfileId ?? '']);
  },
  render: async (deps, communityId, _now, query: SearchQuery) => {
    const parsed = parseSearchQuery(searchText(query.q));
    const { records, ...meta } = await searchPosts(deps.database, communityId, parsed, filtersOf(query), query.page, query.per_page);
    return { body: pagedListEnvelope(meta, records) };
  },
});
