import { PostgresAdapter, type RawBuilder, sql } from 'kysely';
import type { Db } from '../../../db/database.js';
import { preparedQuery } from '../../../db/prepared-query.js';
import { communityTag } from '../../../shared/search-text.js';
import { type PostPageRow, postColumns } from '../../posts/posts.queries.js';
import type { ParsedQuery, SearchTerm } from '../search.rules.js';

/** What a search is limited to besides its community: one feed, one author (Home's feeds always). */
export interface SearchFilters {
  feedId: string | undefined;
  authorProfileId: string | undefined;
}

/** A page of a search: the posts' rows in rank order (with author and feed, as a posts page reads them), and the number of matches. */
export interface SearchHits {
  rows: PostPageRow[];
  total: number;
}

/*
 * Each query term reaches an engine only quoted, inside an expression built here (docs/search.md),
 * so that no operator of either engine can come from the input.
 */

/** Where a term must match: anywhere, only in the title, or only in the body or the author's name. */
export type TermScope = 'any' | 'title' | 'text';

/** A term as an FTS5 string, limited to a scope: its tagged tokens quoted as one phrase (the last one a prefix). */
export function fts5Term(tag: string, term: SearchTerm, scope: TermScope): string {
  const phrase = `"${term.tokens.map((token) => tag + token).join(' ')}"${term.prefix ? '*' : ''}`;
  if (scope === 'title') return `{title} : ${phrase}`;
  if (scope === 'text') return `{author body} : ${phrase}`;
  return phrase;
}

/** The whole query as an FTS5 MATCH expression (SQLite). */
export function fts5Query(tag: string, query: ParsedQuery): string {
  const include = query.include.map((term) => fts5Term(tag, term, 'any')).join(' AND ');
  if (query.exclude.length === 0) return include;
  return `(${include}) NOT (${query.exclude.map((term) => fts5Term(tag, term, 'any')).join(' OR ')})`;
}

const weightsOf: Record<TermScope, string> = { any: '', title: 'A', text: 'CD' };

/** A term as a tsquery literal: tokens joined by `<->`, each quoted, limited to the scope's weights. */
export function tsqueryTerm(tag: string, term: SearchTerm, scope: TermScope): string {
  const last = term.tokens.length - 1;
  const parts = term.tokens.map((token, i) => {
    const quoted = `'${(tag + token).replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
    const label = `${i === last && term.prefix ? '*' : ''}${weightsOf[scope]}`;
    return label === '' ? quoted : `${quoted}:${label}`;
  });
  return parts.length === 1 ? (parts[0] as string) : `(${parts.join(' <-> ')})`;
}

/** The whole query as a tsquery literal (PostgreSQL). */
export function tsqueryOf(tag: string, query: ParsedQuery): string {
  return [
    ...query.include.map((term) => tsqueryTerm(tag, term, 'any')),
    ...query.exclude.map((term) => `!${tsqueryTerm(tag, term, 'any')}`),
  ].join(' & ');
}

/*
 * One statement per page: the matching entries of the community (the index finds them: every token
 * is tagged with the community, docs/search.md), each with its ranking facts (how many of the query's
 * terms its title has, how many its body or author name has), ordered and cut to the page, the total
 * counted over the whole match by a window, and the page's posts joined with their author and feed as
 * the posts lists read them. The facts are each engine's own answer to "does this term match in this
 * field", which both give alike on the same tokens, so both order alike (bm25 and ts_rank would not).
 * Compiled once per shape (number of terms, filters): prepared-query.ts.
 */

interface HitParams {
  [name: string]: string | number | readonly string[];
  communityId: string;
  match: string;
  title: readonly string[];
  text: readonly string[];
  feedId: string;
  authorId: string;
  limit: number;
  offset: number;
}

interface Shape {
  terms: number;
  byFeed: boolean;
  byAuthor: boolean;
}

function filtersSql(shape: Shape, p: HitParams, postgres: boolean): RawBuilder<unknown> {
  // On PostgreSQL the community is compared as an expression that no index answers: the planner
  // would otherwise AND the GIN bitmap with the community's whole range of a b-tree led by
  // community_id (it took post_search_author's, dropped since by migration 017: 200k entries at 200k
  // posts, 25 ms) to drop the few matches of another community sharing the tag.
  const community = postgres ? sql`(s.community_id || '') = ${p.communityId}` : sql`s.community_id = ${p.communityId}`;
  const parts = [community, sql`s.in_home = 1`];
  if (shape.byFeed) parts.push(sql`s.feed_id = ${p.feedId}`);
  if (shape.byAuthor) parts.push(sql`s.author_profile_id = ${p.authorId}`);
  return sql.join(parts, sql` and `);
}

const sumOf = (facts: RawBuilder<unknown>[]): RawBuilder<unknown> => sql.join(facts, sql` + `);

function sqliteHits(shape: Shape, p: HitParams): RawBuilder<HitRow> {
  const fact = (term: string) => sql`(s.doc_id in (select rowid from post_search_fts where post_search_fts match ${term}))`;
  return sql<HitRow>`(select s.post_id as id, s.latest_activity_at as latest, count(*) over () as total,
      ${sumOf(p.title.map(fact))} as title_hits, ${sumOf(p.text.map(fact))} as text_hits
    from post_search_fts join post_search s on s.doc_id = post_search_fts.rowid
    where post_search_fts match ${p.match} and ${filtersSql(shape, p, false)}
    order by title_hits desc, text_hits desc, s.latest_activity_at desc, s.post_id desc
    limit ${p.limit} offset ${p.offset})`;
}

function postgresHits(shape: Shape, p: HitParams): RawBuilder<HitRow> {
  const fact = (term: string) => sql`(s.terms @@ ${term}::tsquery)::int`;
  return sql<HitRow>`(select s.post_id as id, s.latest_activity_at as latest, count(*) over () as total,
      ${sumOf(p.title.map(fact))} as title_hits, ${sumOf(p.text.map(fact))} as text_hits
    from post_search s
    where s.terms @@ ${p.match}::tsquery and ${filtersSql(shape, p, true)}
    order by title_hits desc, text_hits desc, s.latest_activity_at desc, s.post_id collate "C" desc
    limit ${p.limit} offset ${p.offset})`;
}

interface HitRow {
  id: string;
  latest: number;
  total: number | string;
  title_hits: number;
  text_hits: number;
}

function hitsQueryOf(shape: Shape) {
  return preparedQuery((db, p: HitParams) => {
    const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
    const hits = (postgres ? postgresHits(shape, p) : sqliteHits(shape, p)).as('hits');
    return (
      db
        .selectFrom(hits)
        // A cross join (then where): SQLite keeps the page's ten hits the outer loop, rather than the community's posts.
        .crossJoin('posts as post')
        .where('post.community_id', '=', p.communityId)
        .whereRef('post.id', '=', 'hits.id')
        .leftJoin('profiles as author', (join) =>
          join.on('author.community_id', '=', p.communityId).onRef('author.id', '=', 'post.author_profile_id'),
        )
        .leftJoin('feeds as feed', (join) => join.on('feed.community_id', '=', p.communityId).onRef('feed.id', '=', 'post.feed_id'))
        .select(postColumns.map((column) => `post.${column}` as const))
        .select(['hits.total', 'author.doc as author_doc', 'feed.doc as feed_doc'])
        .orderBy('hits.title_hits', 'desc')
        .orderBy('hits.text_hits', 'desc')
        .orderBy('hits.latest', 'desc')
        .orderBy(postgres ? sql`hits.id collate "C"` : sql`hits.id`, 'desc')
    );
  });
}

const hitsQueries = new Map<string, ReturnType<typeof hitsQueryOf>>();

/** The page of a search's matches, in rank order, with the number of matches; no rows past the end. */
export async function selectSearchHits(
  db: Db,
  communityId: string,
  query: ParsedQuery,
  filters: SearchFilters,
  limit: number,
  offset: number,
): Promise<SearchHits> {
  if (query.include.length === 0) return { rows: [], total: 0 };
  const tag = communityTag(communityId);
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const shape: Shape = {
    terms: query.include.length,
    byFeed: filters.feedId !== undefined,
    byAuthor: filters.authorProfileId !== undefined,
  };
  const key = `${shape.terms} ${shape.byFeed} ${shape.byAuthor}`;
  let statement = hitsQueries.get(key);
  if (!statement) {
    statement = hitsQueryOf(shape);
    hitsQueries.set(key, statement);
  }
  const match = postgres ? tsqueryOf(tag, query) : fts5Query(tag, query);
  // SQLite reads each fact's whole column-filtered posting list. With one term that list is the match's
  // own; with several, the match (their AND) is smaller than each term's list, so each fact is asked
  // within it: `(match) AND {title} : term` (two common words at 200k posts: 10-15% less CPU per search).
  const termOf = postgres
    ? tsqueryTerm
    : query.include.length === 1
      ? fts5Term
      : (prefix: string, term: SearchTerm, scope: TermScope) => `(${match}) AND ${fts5Term(prefix, term, scope)}`;
  const rows = await statement.all(db, {
    communityId,
    match,
    title: query.include.map((term) => termOf(tag, term, 'title')),
    text: query.include.map((term) => termOf(tag, term, 'text')),
    feedId: filters.feedId ?? '',
    authorId: filters.authorProfileId ?? '',
    limit,
    offset,
  });
  if (rows.length > 0) return { rows: rows.map(({ total: _, ...row }) => row), total: Number(rows[0]?.total) };
  // Past the end the page has no row to carry the total: count it alone (first page: there is none).
  return { rows: [], total: offset === 0 ? 0 : await countMatches(db, tag, communityId, query, filters, postgres) };
}

async function countMatches(db: Db, tag: string, communityId: string, query: ParsedQuery, filters: SearchFilters, postgres: boolean) {
  const shape: Shape = { terms: 0, byFeed: filters.feedId !== undefined, byAuthor: filters.authorProfileId !== undefined };
  const p = { communityId, feedId: filters.feedId ?? '', authorId: filters.authorProfileId ?? '' } as HitParams;
  const count = postgres
    ? sql<{ n: number | string }>`select count(*) as n from post_search s
        where s.terms @@ ${tsqueryOf(tag, query)}::tsquery and ${filtersSql(shape, p, true)}`
    : sql<{ n: number | string }>`select count(*) as n from post_search_fts join post_search s on s.doc_id = post_search_fts.rowid
        where post_search_fts match ${fts5Query(tag, query)} and ${filtersSql(shape, p, false)}`;
  return Number((await count.execute(db)).rows[0]?.n ?? 0);
}
