// Builds (or finds cached) the corpus of `npm run bench:search` alone, so that the figures' runs do
// not pay for it (docs/search.md, "Figures"). PostgreSQL is copied from the SQLite corpus of the
// same size when there is one: build sqlite first, or both in this order.
// Usage: node --import tsx bench/search-build.ts POSTS sqlite[,postgres] [ONLY]
//   ONLY: the index of a community to build alone (the isolation figure's second database).
// BENCH_SEARCH_DIR: where corpora are kept (default bench/.data/search/); BENCH_DATABASE_URL: PostgreSQL.
import { searchCorpus } from './search-dataset.js';
import { Log } from './util.js';

const total = Number(process.argv[2] ?? 1_000_000);
const engines = (process.argv[3] ?? 'sqlite').split(',') as ('sqlite' | 'postgres')[];
const only = process.argv[4] === undefined ? undefined : Number(process.argv[4]);
const postgresUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/bench';
const log = new Log();
for (const engine of engines) {
  const corpus = await searchCorpus(engine, total, postgresUrl, log, only);
  log.line(JSON.stringify(corpus));
}
