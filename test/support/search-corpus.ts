/**
 * Deterministic post text for search tests and `npm run bench:search`: a vocabulary of 30,000 words
 * in five scripts (Latin with accents, Cyrillic, Greek, Japanese, Chinese) used with Zipf's law (a
 * few words everywhere, most rare, as in real text), with mentions, emoji shortcodes and links.
 */
import { Rng } from '../../src/cli/seed/prng.js';
import { words as seedWords } from '../../src/cli/seed/vocabulary.js';

const latinConsonants = ['b', 'c', 'd', 'f', 'g', 'h', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'z', 'ch', 'st'];
const latinVowels = ['a', 'e', 'i', 'o', 'u', 'a', 'e', 'o', 'é', 'è', 'ü', 'ö', 'ña', 'ï', 'ô'];
const cyrillic = ['б', 'в', 'г', 'д', 'ж', 'з', 'к', 'л', 'м', 'н', 'п', 'р', 'с', 'т'].flatMap((c) =>
  ['а', 'е', 'и', 'о', 'у', 'я', 'ё'].map((v) => c + v),
);
const greek = ['β', 'γ', 'δ', 'κ', 'λ', 'μ', 'ν', 'π', 'ρ', 'σ', 'τ'].flatMap((c) =>
  ['α', 'ε', 'ι', 'ο', 'υ', 'ά', 'έ', 'ί'].map((v) => c + v),
);
const kana =
  'あいうえおかきくけこさしすせそたちつてとなにぬねのまみむめもやゆよらりるれろわをんアイウエオカキクケコサシスセソタチツテト'.split('');
const han = Array.from({ length: 400 }, (_, i) => String.fromCodePoint(0x4e00 + ((i * 37) % 20000)));
/** Real words first (the most frequent ranks), so that tests and queries can read as text. */
const realWords = [
  'the',
  'and',
  'to',
  'of',
  'a',
  'in',
  'is',
  'for',
  'on',
  'with',
  ...seedWords.slice(0, 11),
  'café',
  'naïve',
  'zürich',
  'crème',
  'über',
  'señor',
  'привет',
  'встреча',
  'καλημέρα',
  'συνάντηση',
  '東京',
  'タワー',
  '会議',
  '社区',
  '发布',
  'garden',
  'pizza',
  'update',
];

function syllables(rng: Rng, count: number, pool: readonly string[]): string {
  return Array.from({ length: count }, () => pool[rng.int(0, pool.length - 1)]).join('');
}

/** Word of rank `rank` (0 most frequent). */
function makeWord(rank: number): string {
  if (rank < realWords.length) return realWords[rank] as string;
  const rng = Rng.of('search-vocabulary', 'word', rank);
  const length = rng.int(2, 4);
  switch (rank % 10) {
    case 6:
      return syllables(rng, length, cyrillic);
    case 7:
      return syllables(rng, length, greek);
    case 8:
      return syllables(rng, length, kana) + (rng.chance(0.5) ? syllables(rng, 1, han) : '');
    case 9:
      return syllables(rng, Math.min(length, 3), han);
    default:
      return Array.from(
        { length },
        () => latinConsonants[rng.int(0, latinConsonants.length - 1)] + latinVowels[rng.int(0, latinVowels.length - 1)],
      ).join('');
  }
}

export const vocabularySize = 30_000;
const vocabulary = Array.from({ length: vocabularySize }, (_, rank) => makeWord(rank));

/** The word of a rank (0 is the most frequent). */
export const wordOfRank = (rank: number): string => vocabulary[rank] as string;

/** A rank drawn by Zipf's law (probability about 1 / (rank + 2)). */
function zipfRank(rng: Rng): number {
  return Math.min(vocabularySize - 1, Math.floor(Math.exp(rng.next() * Math.log(vocabularySize + 2)) - 2 + 1e-9) | 0);
}

const emoji = ['tada', 'heart', 'wave', 'rocket', 'eyes', '+1', 'fire', 'seedling'];
const links = [
  'https://example.com/blog/community-update',
  'https://docs.example.org/guides/getting-started?x=1',
  'https://github.com/example/project/pull/42',
];

/** Title and body_plaintext of post `index`, mentioning some of `names` (display names). */
export function postText(seed: string, index: number, names: readonly string[]): { title: string; body: string } {
  const rng = Rng.of(seed, 'search-post', index);
  const words = (n: number) => Array.from({ length: n }, () => wordOfRank(Math.max(0, zipfRank(rng)))).join(' ');
  const title = words(rng.int(2, 6));
  const parts: string[] = [];
  const sentences = rng.int(1, 4);
  for (let s = 0; s < sentences; s++) {
    let sentence = words(rng.int(4, 18));
    if (names.length > 0 && rng.chance(0.15)) sentence = `@${names[rng.int(0, names.length - 1)]} ${sentence}`;
    if (rng.chance(0.12)) sentence += ` :${emoji[rng.int(0, emoji.length - 1)]}:`;
    if (rng.chance(0.05)) sentence += ` ${links[rng.int(0, links.length - 1)]}`;
    parts.push(`${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`);
  }
  return { title: title.charAt(0).toUpperCase() + title.slice(1), body: parts.join(' ') };
}

/** Display names for authors: accented, and in other scripts now and then. */
export function authorName(index: number): string {
  const first = ['Zoë', 'Ada', 'José', 'Łukasz', 'Ingrid', 'Дмитрий', 'Ελένη', 'さくら', 'François', 'Ngozi'];
  const last = ['Ångström', 'Lovelace', 'Müller', 'Nowak', 'Иванова', 'Παππάς', '田中', 'García', 'Okafor', 'Dubois'];
  return `${first[index % first.length]} ${last[Math.floor(index / first.length) % last.length]}`;
}
