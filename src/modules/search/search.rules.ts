import { refuse } from '../../shared/failures.js';
import { isUnspacedChar, tokensOf } from '../../shared/search-text.js';
import type { ParsedQuery, SearchTerm } from './queries/hits.js';
import { maxQueryLength } from './search.schemas.js';

// The parsed query is the input of the statements (./queries/hits.ts), declared there; parsed here.
export type { ParsedQuery };

/*
 * The query language (docs/search.md): words are ANDed, "a phrase" matches consecutive words,
 * -word (or -"a phrase") excludes, word* is a prefix. Everything else is plain text: the query is
 * cut into the same tokens as the index (search-text.ts), and each token reaches an engine only
 * quoted, inside an expression built here, so no operator of either engine can come from the input.
 */

/**
 * Matches per cost unit: ranking a match costs 1-2 µs on SQLite (joined to its entry, counted and
 * sorted), so ~500 matches cost about what an uncached page of ten posts costs (the unit).
 */
const matchesPerCostUnit = 500;

/** What a search costs in the key's cost budget: a page of posts, plus one unit per 500 matches ranked. */
export const costOfSearch = (matches: number): number => 1 + Math.floor(matches / matchesPerCostUnit);

const keyOf = (term: SearchTerm) => `${term.prefix ? '*' : ''}${term.tokens.join(' ')}`;

/** A prefix needs two characters (one of an unspaced script): `a*` would read most of the index. */
function termOf(text: string, wantsPrefix: boolean): SearchTerm | undefined {
  const tokens = tokensOf(text);
  const last = tokens[tokens.length - 1];
  if (last === undefined) return undefined;
  const prefix = wantsPrefix && (Array.from(last).length >= 2 || isUnspacedChar(last));
  return { tokens, prefix };
}

/** Parses a query (already trimmed); terms repeated are kept once. */
export function parseSearchQuery(q: string): ParsedQuery {
  const include = new Map<string, SearchTerm>();
  const exclude = new Map<string, SearchTerm>();
  let i = 0;
  while (i < q.length) {
    while (i < q.length && /\s/.test(q.charAt(i))) i++;
    if (i >= q.length) break;
    let negated = false;
    if (q.charAt(i) === '-' && i + 1 < q.length && !/\s/.test(q.charAt(i + 1))) {
      negated = true;
      i++;
    }
    let text: string;
    let wantsPrefix = false;
    const close = q.charAt(i) === '"' ? q.indexOf('"', i + 1) : -1;
    if (close > i) {
      text = q.slice(i + 1, close);
      i = close + 1;
      if (q.charAt(i) === '*') {
        wantsPrefix = true;
        while (q.charAt(i) === '*') i++;
      }
    } else {
      const start = i;
      while (i < q.length && !/\s/.test(q.charAt(i))) i++;
      text = q.slice(start, i);
      wantsPrefix = /[\p{L}\p{N}]\*+$/u.test(text);
    }
    const term = termOf(text, wantsPrefix);
    if (term) (negated ? exclude : include).set(keyOf(term), term);
  }
  return { include: [...include.values()], exclude: [...exclude.values()] };
}

/** The query text, trimmed; refused at `q` when it is empty or longer than 200 characters. */
export function searchText(q: string): string {
  const text = q.trim();
  if (text === '') throw refuse(['q'], 'required', 'must not be empty (1 to 200 characters after trimming)');
  if ([...text].length > maxQueryLength) throw refuse(['q'], 'too_long', `must be at most ${maxQueryLength} characters after trimming`);
  return text;
}
