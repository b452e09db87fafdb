import { PostgresAdapter, type RawBuilder, sql } from 'kysely';
import type { Db } from '../../../db/database.js';
import { preparedQuery } from '../../../db/prepared-query.js';
import { communityTag, wordPairs } from '../../../shared/search-text.js';
import { type PostPageRow, postColumns } from '../../posts/posts.queries.js';

/** One term: consecutive tokens (one for a word), the last one a prefix or not. */
export interface SearchTerm {
  tokens: string[];
  prefix: boolean;
}

/** A parsed query: terms every result has, and terms none has. */
export interface ParsedQuery {
  include: SearchTerm[];
  exclude: SearchTerm[];
}

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

/**
 * The word pairs of a phrase the index holds (search-text.ts): each two consecutive tokens the first
 * of which is a common word, the last token not a prefix. A phrase holds in a field only where its pairs
 * do, so they narrow its candidates to a short list; a phrase of exactly one pair is that pair. Empty
 * when the community's index predates pairs (`paired` false: see pairedCommunity).
 */
function pairsOf(tag: string, term: SearchTerm, paired: boolean): string[] {
  if (!paired) return [];
  return wordPairs(tag, term.prefix ? term.tokens.slice(0, -1) : term.tokens);
}

/** True when a term is exactly one word pair of the index: two tokens, no prefix, the first a common word. */
const isOnePair = (term: SearchTerm, pairs: readonly string[]) => pairs.length === 1 && term.tokens.length === 2 && !term.prefix;

/** A term as an FTS5 string, limited to a scope: its tagged tokens quoted as one phrase (the last one a prefix), with its pairs. */
function fts5Term(tag: string, term: SearchTerm, scope: TermScope, paired: boolean): string {
  const pairs = pairsOf(tag, term, paired);
  const phrase = `"${term.tokens.map((token) => tag + token).join(' ')}"${term.prefix ? '*' : ''}`;
  const expression = isOnePair(term, pairs)
    ? `"${pairs[0]}"`
    : pairs.length > 0
      ? `(${[...pairs.map((pair) => `"${pair}"`), phrase].join(' AND ')})`
      : phrase;
  if (scope === 'title') return `{title} : ${expression}`;
  if (scope === 'text') return `{author body} : ${expression}`;
  return expression;
}

/** The whole query as an FTS5 MATCH expression (SQLite). */
function fts5Query(tag: string, query: ParsedQuery, paired: boolean): string {
  const include = query.include.map((term) => fts5Term(tag, term, 'any', paired)).join(' AND ');
  if (query.exclude.length === 0) return include;
  return `(${include}) NOT (${query.exclude.map((term) => fts5Term(tag, term, 'any', paired)).join(' OR ')})`;
}

const weightsOf: Record<TermScope, string> = { any: '', title: 'A', text: 'CD' };

/** A tsquery operand: a lexeme quoted, with its labels (prefix, weights). */
const operand = (lexeme: string, label: string) => {
  const quoted = `'${lexeme.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
  return label === '' ? quoted : `${quoted}:${label}`;
};

/** A term as a tsquery literal: tokens joined by `<->`, each quoted, limited to the scope's weights, with its pairs. */
function tsqueryTerm(tag: string, term: SearchTerm, scope: TermScope, paired: boolean): string {
  const pairs = pairsOf(tag, term, paired).map((pair) => operand(pair, weightsOf[scope]));
  if (isOnePair(term, pairs)) return pairs[0] as string;
  const last = term.tokens.length - 1;
  const parts = term.tokens.map((token, i) => operand(tag + token, `${i === last && term.prefix ? '*' : ''}${weightsOf[scope]}`));
  const phrase = parts.length === 1 ? (parts[0] as string) : `(${parts.join(' <-> ')})`;
  return pairs.length > 0 ? `(${[...pairs, phrase].join(' & ')})` : phrase;
}

/** The whole query as a tsquery literal (PostgreSQL). */
function tsqueryOf(tag: string, query: ParsedQuery, paired: boolean): string {
  return [
    ...query.include.map((term) => tsqueryTerm(tag, term, 'any', paired)),
    ...query.exclude.map((term) => `!${tsqueryTerm(tag, term, 'any', paired)}`),
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
  /** SQLite: the match read as the union of the term's title and text lists (one phrase, nothing excluded). */
  union: boolean;
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
  if (shape.union) return sqlitePhraseHits(shape, p);
  const fact = (term: string) => sql`(s.doc_id in (select rowid from post_search_fts where post_search_fts match ${term}))`;
  return sql<HitRow>`(select s.post_id as id, s.latest_activity_at as latest, count(*) over () as total,
      ${sumOf(p.title.map(fact))} as title_hits, ${sumOf(p.text.map(fact))} as text_hits
    from post_search_fts join post_search s on s.doc_id = post_search_fts.rowid
    where post_search_fts match ${p.match} and ${filtersSql(shape, p, false)}
    order by title_hits desc, text_hits desc, s.latest_activity_at desc, s.post_id desc
    limit ${p.limit} offset ${p.offset})`;
}

/*
 * A query of one phrase, nothing excluded: its matches are the posts with the phrase in the title or
 * in the text, so the two lists the ranking needs anyway are the match too. FTS5 then evaluates the
 * phrase twice instead of three times: a phrase of frequent words is the dearest term to evaluate
 * (`"the zivö"` read without its word pair at 200k posts: 11 -> 8.5 ms of CPU). For a single token (a
 * word, or a phrase that is one word pair) the two lists and their union cost more than the one match
 * they replace, so those keep the statement above.
 */
function sqlitePhraseHits(shape: Shape, p: HitParams): RawBuilder<HitRow> {
  const [title, text] = [p.title[0] ?? '', p.text[0] ?? ''];
  return sql<HitRow>`(with t(d) as materialized (select rowid from post_search_fts where post_search_fts match ${title}),
      x(d) as materialized (select rowid from post_search_fts where post_search_fts match ${text}),
      m as materialized (select s.post_id, s.latest_activity_at, s.doc_id in t as title_hits, s.doc_id in x as text_hits
        from (select d from t union select d from x) as u cross join post_search s
        where s.doc_id = u.d and ${filtersSql(shape, p, false)})
    select post_id as id, latest_activity_at as latest, (select count(*) from m) as total, title_hits, text_hits
    from m order by title_hits desc, text_hits desc, latest desc, id desc
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

/**
 * The ids of every match in rank order, without their posts: a search's whole result, for the
 * ranked lists kept per query (src/caching/ranked-lists.ts). The same ranking statement as a page's.
 */
function rankedIdsQueryOf(shape: Shape) {
  return preparedQuery((db, p: HitParams) => {
    const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
    const hits = (postgres ? postgresHits(shape, p) : sqliteHits(shape, p)).as('hits');
    return db
      .selectFrom(hits)
      .select('hits.id')
      .orderBy('hits.title_hits', 'desc')
      .orderBy('hits.text_hits', 'desc')
      .orderBy('hits.latest', 'desc')
      .orderBy(postgres ? sql`hits.id collate "C"` : sql`hits.id`, 'desc');
  });
}

const rankedIdsQueries = new Map<string, ReturnType<typeof rankedIdsQueryOf>>();

/** A search made ready to run: its statement's shape and parameters (the page's limit and offset aside). */
interface HitsPlan {
  shape: Shape;
  key: string;
  params: Pick<HitParams, 'communityId' | 'match' | 'title' | 'text' | 'feedId' | 'authorId'>;
  tag: string;
  postgres: boolean;
  paired: boolean;
}

async function planHits(db: Db, communityId: string, query: ParsedQuery, filters: SearchFilters): Promise<HitsPlan> {
  const tag = communityTag(communityId);
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const paired = await pairedCommunity(db, communityId);
  const only = query.include[0];
  // One phrase that its pairs do not reduce to a single token: the dear term to evaluate (sqlitePhraseHits).
  const phrase =
    query.include.length === 1 &&
    query.exclude.length === 0 &&
    only !== undefined &&
    only.tokens.length > 1 &&
    !isOnePair(only, pairsOf(tag, only, paired));
  const shape: Shape = {
    terms: query.include.length,
    byFeed: filters.feedId !== undefined,
    byAuthor: filters.authorProfileId !== undefined,
    union: !postgres && phrase,
  };
  const match = postgres ? tsqueryOf(tag, query, paired) : fts5Query(tag, query, paired);
  // SQLite reads each fact's whole column-filtered posting list. With one term that list is the match's
  // own; with several, the match (their AND) is smaller than each term's list, so each fact is asked
  // within it: `(match) AND {title} : term` (two common words at 200k posts: 10-15% less CPU per search).
  const termOf = postgres
    ? tsqueryTerm
    : query.include.length === 1
      ? fts5Term
      : (prefix: string, term: SearchTerm, scope: TermScope, withPairs: boolean) =>
          `(${match}) AND ${fts5Term(prefix, term, scope, withPairs)}`;
  const params = {
    communityId,
    match,
    title: query.include.map((term) => termOf(tag, term, 'title', paired)),
    text: query.include.map((term) => termOf(tag, term, 'text', paired)),
    feedId: filters.feedId ?? '',
    authorId: filters.authorProfileId ?? '',
  };
  return { shape, key: `${shape.terms} ${shape.byFeed} ${shape.byAuthor} ${shape.union}`, params, tag, postgres, paired };
}

/** The page of a search's matches, in rank order, with the number of matches; no rows past the end. */
export async function selectSearchHits(
  db: Db,
  communityId: string,
  query: ParsedQuery,
  filters: SearchFilters,
  limit: number,
  offset: number,
  /** A heavy search (many matches): read off the event loop where the engine runs on it (SQLite's read thread). */
  offLoop = false,
): Promise<SearchHits> {
  if (query.include.length === 0) return { rows: [], total: 0 };
  const plan = await planHits(db, communityId, query, filters);
  let statement = hitsQueries.get(plan.key);
  if (!statement) {
    statement = hitsQueryOf(plan.shape);
    hitsQueries.set(plan.key, statement);
  }
  const params = { ...plan.params, limit, offset };
  const rows = await (offLoop ? statement.allOffLoop(db, params) : statement.all(db, params));
  if (rows.length > 0) return { rows: rows.map(({ total: _, ...row }) => row), total: Number(rows[0]?.total) };
  // Past the end the page has no row to carry the total: count it alone (first page: there is none).
  return {
    rows: [],
    total: offset === 0 ? 0 : await countMatches(db, plan.tag, communityId, query, filters, plan.postgres, plan.paired),
  };
}

/** Every match's post id, in rank order (its length is the exact total). */
export async function selectRankedPostIds(
  db: Db,
  communityId: string,
  query: ParsedQuery,
  filters: SearchFilters,
  offLoop = false,
): Promise<string[]> {
  if (query.include.length === 0) return [];
  const plan = await planHits(db, communityId, query, filters);
  let statement = rankedIdsQueries.get(plan.key);
  if (!statement) {
    statement = rankedIdsQueryOf(plan.shape);
    rankedIdsQueries.set(plan.key, statement);
  }
  // The inner statement cuts to a page; the whole result is a page as long as every match.
  const params = { ...plan.params, limit: allRows, offset: 0 };
  const rows = await (offLoop ? statement.allOffLoop(db, params) : statement.all(db, params));
  return rows.map((row) => row.id);
}

/** A LIMIT that no community's matches reach (both engines take it as a number). */
const allRows = 2_147_483_647;

/** Per database, the communities known to have word pairs in their whole index: a row of post_search_unpaired never comes back. */
const pairedCommunities = new WeakMap<Db, Set<string>>();

/** True when the community's index has word pairs throughout (no post_search_unpaired row); read once per community and process. */
async function pairedCommunity(db: Db, communityId: string): Promise<boolean> {
  let known = pairedCommunities.get(db);
  if (known?.has(communityId)) return true;
  const row = await db.selectFrom('post_search_unpaired').select('community_id').where('community_id', '=', communityId).executeTakeFirst();
  if (row) return false;
  if (!known) {
    known = new Set();
    pairedCommunities.set(db, known);
  }
  known.add(communityId);
  return true;
}

async function countMatches(
  db: Db,
  tag: string,
  communityId: string,
  query: ParsedQuery,
  filters: SearchFilters,
  postgres: boolean,
  paired: boolean,
) {
  const shape: Shape = { terms: 0, byFeed: filters.feedId !== undefined, byAuthor: filters.authorProfileId !== undefined, union: false };
  const p = { communityId, feedId: filters.feedId ?? '', authorId: filters.authorProfileId ?? '' } as HitParams;
  const count = postgres
    ? sql<{ n: number | string }>`select count(*) as n from post_search s
        where s.terms @@ ${tsqueryOf(tag, query, paired)}::tsquery and ${filtersSql(shape, p, true)}`
    : sql<{ n: number | string }>`select count(*) as n from post_search_fts join post_search s on s.doc_id = post_search_fts.rowid
        where post_search_fts match ${fts5Query(tag, query, paired)} and ${filtersSql(shape, p, false)}`;
  return Number((await count.execute(db)).rows[0]?.n ?? 0);
}
