/*
 * The words of search (docs/search.md): text is normalised here, in JavaScript, once, so that both
 * engines index and query the very same tokens and agree on every match. Case and accents are
 * folded (lower case, NFKD, combining marks dropped, NFC again so that Hangul syllables recompose),
 * words are runs of letters and digits, and each character of a script written without spaces (Han,
 * kana, Hangul, Thai ...) is a token of its own, so that a phrase of them finds any substring.
 *
 * Every token carries its community's tag (a fixed-length prefix): an index term then belongs to one
 * community, and a search reads only its community's part of the index whatever the others hold.
 *
 * Migration 013 indexes with these rules: a change of them is a new migration that reindexes.
 */

/** Most tokens indexed per field: title, author name, body (the rest of a longer text is not searchable). */
export const fieldTokenLimits = { title: 1000, author: 50, body: 8000 } as const;
/** Where each field's positions start in a PostgreSQL tsvector (gaps keep a phrase inside one field). */
const fieldStarts = { title: 1, author: 1010, body: 1100 } as const;
/** A position's weight: title A, author C, body D (a field's positions never reach the next field's start). */
const weightAt = (position: number): string => (position >= fieldStarts.body ? 'D' : position >= fieldStarts.author ? 'C' : 'A');
/** PostgreSQL keeps at most 256 positions of a lexeme; later occurrences are left out on both engines. */
const positionsPerToken = 256;
/** Longer tokens are cut (a lexeme is at most 2 kB on PostgreSQL; nobody searches a 60-letter word). */
const maxTokenLength = 60;

const wordRun = /[\p{L}\p{N}]+/gu;
const marks = /\p{M}+/gu;
const unspaced = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}\p{sc=Thai}\p{sc=Lao}\p{sc=Khmer}\p{sc=Myanmar}]/u;
const unspacedAll = new RegExp(unspaced.source, 'gu');

/** Latin letters whose stroke or ligature no decomposition removes, spelled as a person without them types them. */
const letterFolds: Record<string, string> = { ł: 'l', ø: 'o', đ: 'd', ð: 'd', ħ: 'h', ı: 'i', ŀ: 'l', ß: 'ss', æ: 'ae', œ: 'oe', þ: 'th' };
const foldable = new RegExp(`[${Object.keys(letterFolds).join('')}]`, 'gu');

const nonAscii = /[\u0080-\uffff]/;
const asciiWord = /[a-z0-9]+/g;

/** Case and accents folded: `Café` and `CAFE` both give `cafe`, `naïve` gives `naive`, `Łódź` gives `lodz`. */
export function foldText(text: string): string {
  // Most text is ASCII: lower case is all it needs (NFKD, the marks and NFC change nothing there).
  if (!nonAscii.test(text)) return text.toLowerCase();
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(marks, '')
    .replace(foldable, (letter) => letterFolds[letter] ?? letter)
    .normalize('NFC');
}

function cut(token: string): string {
  return token.length <= maxTokenLength ? token : Array.from(token).slice(0, maxTokenLength).join('');
}

/** Splits a run of letters and digits around its unspaced-script characters (each a token). */
function pushRun(tokens: string[], run: string): void {
  if (!unspaced.test(run)) {
    tokens.push(cut(run));
    return;
  }
  let last = 0;
  for (const match of run.matchAll(unspacedAll)) {
    if (match.index > last) tokens.push(cut(run.slice(last, match.index)));
    tokens.push(match[0]);
    last = match.index + match[0].length;
  }
  if (last < run.length) tokens.push(cut(run.slice(last)));
}

/** The tokens of a text, in order (folded; unspaced-script characters one by one), at most `limit`. */
export function tokensOf(text: string, limit = Number.POSITIVE_INFINITY): string[] {
  const folded = foldText(text);
  if (!nonAscii.test(folded)) return firstTokens(folded.match(asciiWord) ?? [], limit);
  // Without unspaced-script characters every run is a token: one native match, as for ASCII text.
  if (!unspaced.test(folded)) return firstTokens(folded.match(wordRun) ?? [], limit);
  const tokens: string[] = [];
  for (const [run] of folded.matchAll(wordRun)) {
    pushRun(tokens, run);
    if (tokens.length >= limit) return tokens.slice(0, limit);
  }
  return tokens;
}

/**
 * The first `limit` runs, cut to the longest token: the common case (no unspaced script) in native
 * matches, not a loop over match objects (tokenising was a third of the index's cost on the import).
 */
function firstTokens(runs: string[], limit: number): string[] {
  if (runs.length > limit) runs.length = limit;
  return runs.some((run) => run.length > maxTokenLength) ? runs.map(cut) : runs;
}

/** True when a token is one character of an unspaced script (a prefix of it is the character itself). */
export const isUnspacedChar = (token: string): boolean => unspaced.test(token) && Array.from(token).length === 1;

/** The community's tag: five base-36 digits of a hash of its id, after a letter (fixed length, so tags never blur). */
export function communityTag(communityId: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < communityId.length; i++) {
    hash ^= communityId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `q${(hash % 36 ** 5).toString(36).padStart(5, '0')}`;
}

/*
 * Word pairs. A phrase with a very frequent word (`"the zivö"`) costs either engine a check of every
 * post holding both words: at 200k posts, 12,668 candidates for 958 matches. So each field is also
 * indexed with its pairs of consecutive tokens whose first is a common word, as one token each (a
 * "common gram"); a phrase then reads the short list of its pair, and a phrase of exactly such a pair
 * is that token alone. Only the pairs a common word starts: half the tokens of pairs on both sides,
 * for the phrases people type (`"the launch"`, `"state of the art"`); one ending in a common word
 * (`"state of"`) is read as a phrase alone. The pairs follow a field's tokens (SQLite: after them in
 * the column, so no token's position moves; PostgreSQL: one position per field, for its weight), and
 * start with `p` where every word token starts with its tag's `q`: no query token can match a pair.
 * The index and the query take their pairs from the same function (wordPairs), so they cannot differ.
 */

/** The common words of pairs: the most frequent words of English, French, Spanish and German text. A change is a migration that reindexes. */
const commonWords: ReadonlySet<string> = new Set(
  [
    'the of and to a in is it you that for on with as at by this be are was from or an we our not but have has i my your will can',
    'de la le les et des du un une en el los las y que der die das und ein eine zu den',
  ]
    .join(' ')
    .split(' '),
);

/** The index token of two consecutive tokens: `p`, the tag's digits, the first token's length (two base-36 digits), both tokens. */
function pairToken(tag: string, first: string, second: string): string {
  return `p${tag.slice(1)}${first.length.toString(36).padStart(2, '0')}${first}${second}`;
}

/** The distinct pair tokens of consecutive tokens (a left-out occurrence, `undefined`, pairs with nothing): a field's, or a phrase's. */
export function wordPairs(tag: string, tokens: readonly (string | undefined)[]): string[] {
  const pairs = new Set<string>();
  for (let i = 0; i + 1 < tokens.length; i++) {
    const [first, second] = [tokens[i], tokens[i + 1]];
    if (first === undefined || second === undefined) continue;
    if (commonWords.has(first)) pairs.add(pairToken(tag, first, second));
  }
  return [...pairs];
}

/** What is searchable of a post. */
export interface SearchSource {
  title: string;
  body: string;
  author: string;
}

/** A post's index entry: the three fields as tagged token texts (SQLite FTS5) or one tsvector literal (PostgreSQL). */
export interface SearchDocument {
  title: string;
  author: string;
  body: string;
  tsvector: string;
}

type Field = keyof typeof fieldTokenLimits;
const fields: Field[] = ['title', 'author', 'body'];

/**
 * The index entry of a post, for one engine (`tsvector` is '' for SQLite, the texts '' for
 * PostgreSQL). Both forms hold the same tokens at the same positions: an occurrence past a token's
 * 256th is left out of the tsvector, and stands as the bare tag (a token no query asks for) in the
 * SQLite text, so that phrases match alike on both.
 */
export function searchDocument(tag: string, source: SearchSource, postgres: boolean): SearchDocument {
  const fieldTokens = fields.map((field) => tokensOf(source[field], fieldTokenLimits[field]));
  const count = fieldTokens.reduce((sum, tokens) => sum + tokens.length, 0);
  // A token can pass its 256th occurrence only in a text of more than 256 tokens.
  const seen = count > positionsPerToken ? new Map<string, number>() : undefined;
  const positions = new Map<string, number[]>();
  const texts: Record<Field, string> = { title: '', author: '', body: '' };
  const place = (lexeme: string, position: number) => {
    const list = positions.get(lexeme);
    if (list) list.push(position);
    else positions.set(lexeme, [position]);
  };
  fields.forEach((field, f) => {
    const tokens = fieldTokens[f] as string[];
    if (!postgres && !seen) {
      // No occurrence to leave out: the tagged text in one join, not a string per token; its pairs after it.
      const pairs = wordPairs(tag, tokens);
      const words = tokens.length === 0 ? '' : tag + tokens.join(` ${tag}`);
      texts[field] = pairs.length === 0 ? words : `${words} ${pairs.join(' ')}`;
      return;
    }
    const out: string[] = [];
    // The field's tokens as indexed: undefined for an occurrence left out (past its 256th).
    const kept = tokens.map((token, i) => {
      const lexeme = tag + token;
      if (seen) {
        const occurrences = (seen.get(lexeme) ?? 0) + 1;
        seen.set(lexeme, occurrences);
        if (occurrences > positionsPerToken) {
          out.push(tag);
          return undefined;
        }
      }
      if (postgres) place(lexeme, fieldStarts[field] + i);
      else out.push(lexeme);
      return token;
    });
    const pairs = wordPairs(tag, kept);
    // One position per field: the pair's weight is its field's.
    if (postgres) for (const pair of pairs) place(pair, fieldStarts[field]);
    else out.push(...pairs);
    texts[field] = out.join(' ');
  });
  if (!postgres) return { ...texts, tsvector: '' };
  // Numbers until here, each position's weight told by its field's range: a string per position
  // built once, not twice (the tsvector was 2.5x the cost of SQLite's texts).
  let tsvector = '';
  for (const [lexeme, list] of positions) {
    let entry = `${tsvector === '' ? '' : ' '}'${lexeme}':`;
    for (let k = 0; k < list.length; k++) {
      const position = list[k] as number;
      entry += `${k === 0 ? '' : ','}${position}${weightAt(position)}`;
    }
    tsvector += entry;
  }
  return { title: '', author: '', body: '', tsvector };
}
