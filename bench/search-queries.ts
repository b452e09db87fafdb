import { wordOfRank } from '../test/support/search-corpus.js';

/** The measured queries of `npm run bench:search`: words of the corpus' vocabulary by frequency rank (0 the most frequent). */
export const searchQueries: { name: string; q: string }[] = [
  { name: 'one word', q: wordOfRank(1200) },
  { name: 'two words', q: `${wordOfRank(60)} ${wordOfRank(250)}` },
  { name: 'phrase', q: `"${wordOfRank(0)} ${wordOfRank(40)}"` },
  { name: 'prefix', q: `${wordOfRank(400).slice(0, 4)}*` },
  { name: 'frequent word', q: wordOfRank(3) },
];
