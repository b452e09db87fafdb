import { isUnspacedChar, tokensOf } from '../../shared/search-text.js';

/*
 * The query language (docs/search.md): words are ANDed, "a phrase" matches consecutive words,
 * -word (or -"a phrase") excludes, word* is a prefix. Everything else is plain text: the query is
 * cut into the same tokens as the index (search-text.ts), and each token reaches an engine only
 * quoted, inside an expression built here, so no operator of either engine can come from the input.
 */

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
