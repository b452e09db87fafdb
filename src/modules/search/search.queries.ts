import { PostgresAdapter, type RawBuilder, sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { communityTag } from '../../shared/search-text.js';
import { fts5Query, fts5Term, type ParsedQuery, type SearchTerm, type TermScope, tsqueryOf, tsqueryTerm } from './search-query.js';

/** What a search is limited to besides its community: one feed, one author (Home's feeds always). */
export interface SearchFilters {
  feedId: string | undefined;
  authorProfileId: string | undefined;
}

/** A page of a search: the posts' ids in rank order, and how many posts match in all. */
export interface SearchHits {
  ids: string[];
  total: number;
}

/*
 * One statement per page: the matching entries of the community (the index finds them: every term
 * is tagged with the community, docs/search.md), each with its ranking facts (how many of the
 * query's terms its title has, how many its body or author name has), ordered and cut to the page,
 * the total counted over the whole match by a window. Ranking facts are the engine's own answer to
 * "does this term match in this field", which both engines give alike on the same tokens, so both
 * order alike; bm25 and ts_rank would not.
 */

function filtersSql(filters: SearchFilters, alias: string): RawBuilder<unknown> {
  const parts = [sql`${sql.ref(`${alias}.in_home`)} = 1`];
  if (filters.feedId !== undefined) parts.push(sql`${sql.ref(`${alias}.feed_id`)} = ${filters.feedId}`);
  if (filters.authorProfileId !== undefined) parts.push(sql`${sql.ref(`${alias}.author_profile_id`)} = ${filters.authorProfileId}`);
  return sql.join(parts, sql` and `);
}

const sumOf = (facts: RawBuilder<unknown>[]): RawBuilder<unknown> => (facts.length === 0 ? sql`0` : sql.join(facts, sql` + `));

function sqliteFacts(tag: string, terms: SearchTerm[], scope: TermScope): RawBuilder<unknown> {
  return sumOf(
    terms.map((term) => sql`(s.doc_id in (select rowid from post_search_fts where post_search_fts match ${fts5Term(tag, term, scope)}))`),
  );
}

function postgresFacts(tag: string, terms: SearchTerm[], scope: TermScope): RawBuilder<unknown> {
  return sumOf(terms.map((term) => sql`(s.terms @@ ${tsqueryTerm(tag, term, scope)}::tsquery)::int`));
}

interface HitRow {
  id: string;
  total: number | string;
}

/** The ids of a page of a search's matches, in rank order, with the number of matches; [] past the end. */
export async function selectSearchHits(
  db: Db,
  communityId: string,
  query: ParsedQuery,
  filters: SearchFilters,
  limit: number,
  offset: number,
): Promise<SearchHits> {
  if (query.include.length === 0) return { ids: [], total: 0 };
  const tag = communityTag(communityId);
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const statement = postgres ? postgresSearch(tag, communityId, query, filters) : sqliteSearch(tag, communityId, query, filters);
  const { rows } = await sql<HitRow>`${statement} limit ${limit} offset ${offset}`.execute(db);
  if (rows.length > 0) return { ids: rows.map((row) => row.id), total: Number(rows[0]?.total) };
  // Past the end the page has no row to carry the total: count it alone (first page: there is none).
  if (offset === 0) return { ids: [], total: 0 };
  const count = postgres
    ? sql<{ n: number | string }>`select count(*) as n from post_search s
        where s.community_id = ${communityId} and s.terms @@ ${tsqueryOf(tag, query)}::tsquery and ${filtersSql(filters, 's')}`
    : sql<{ n: number | string }>`select count(*) as n from post_search_fts join post_search s on s.doc_id = post_search_fts.rowid
        where post_search_fts match ${fts5Query(tag, query)} and s.community_id = ${communityId} and ${filtersSql(filters, 's')}`;
  const counted = await count.execute(db);
  return { ids: [], total: Number(counted.rows[0]?.n ?? 0) };
}

function sqliteSearch(tag: string, communityId: string, query: ParsedQuery, filters: SearchFilters): RawBuilder<HitRow> {
  return sql<HitRow>`select s.post_id as id, count(*) over () as total,
      ${sqliteFacts(tag, query.include, 'title')} as title_hits,
      ${sqliteFacts(tag, query.include, 'text')} as text_hits
    from post_search_fts join post_search s on s.doc_id = post_search_fts.rowid
    where post_search_fts match ${fts5Query(tag, query)} and s.community_id = ${communityId} and ${filtersSql(filters, 's')}
    order by title_hits desc, text_hits desc, s.latest_activity_at desc, s.post_id desc`;
}

function postgresSearch(tag: string, communityId: string, query: ParsedQuery, filters: SearchFilters): RawBuilder<HitRow> {
  return sql<HitRow>`select s.post_id as id, count(*) over () as total,
      ${postgresFacts(tag, query.include, 'title')} as title_hits,
      ${postgresFacts(tag, query.include, 'text')} as text_hits
    from post_search s
    where s.community_id = ${communityId} and s.terms @@ ${tsqueryOf(tag, query)}::tsquery and ${filtersSql(filters, 's')}
    order by title_hits desc, text_hits desc, s.latest_activity_at desc, s.post_id collate "C" desc`;
}
