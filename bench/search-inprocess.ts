// In-process cost of each measured search kind (docs/search.md), robust to a loaded machine: the
// median milliseconds of a whole search (hits, the page's rows, rendering) on the corpus' target
// community, and of the hits statement alone; with EXPLAIN=1 the plans.
// Usage: node --import tsx bench/search-inprocess.ts POSTS sqlite|postgres [RUNS (200)]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDatabaseUrl } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { searchPosts } from '../src/modules/search/search.service.js';
import { parseSearchQuery } from '../src/modules/search/search-query.js';
import { searchQueries } from './search-queries.js';
import type { SearchCorpus } from './search-dataset.js';
import { dataDir, median } from './util.js';

const [postsArg = '1000000', engine = 'sqlite', runsArg = '200'] = process.argv.slice(2);
const corpusDir = process.env.BENCH_SEARCH_DIR ?? join(dataDir, 'search');
const corpus = JSON.parse(readFileSync(join(corpusDir, `${engine}-${postsArg}.meta`), 'utf8')) as SearchCorpus;
const target = parseDatabaseUrl(corpus.databaseUrl);
const schema = /search_path%3D([a-z0-9_]+)/i.exec(corpus.databaseUrl)?.[1];
const database = target.engine === 'sqlite' ? openDatabase(target) : openDatabase(target, schema ? { schema } : {});
const communityId = corpus.communityIds[0] as string;
const filters = { feedId: undefined, authorProfileId: undefined };
const only = process.env.QUERY;
for (const { name, q } of searchQueries) {
  if (only && only !== name) continue;
  const parsed = parseSearchQuery(q);
  const first = await searchPosts(database, communityId, parsed, filters, 0, 10);
  const times = name === 'frequent word' ? Math.max(5, Math.floor(Number(runsArg) / 20)) : Number(runsArg);
  for (let i = 0; i < Math.min(20, times); i++) await searchPosts(database, communityId, parsed, filters, 0, 10);
  const samples: number[] = [];
  const cpuStart = process.cpuUsage();
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    await searchPosts(database, communityId, parsed, filters, 0, 10);
    samples.push(performance.now() - started);
  }
  const cpu = process.cpuUsage(cpuStart);
  const round = (ms: number) => Math.round(ms * 1000) / 1000;
  samples.sort((a, b) => a - b);
  console.log(
    JSON.stringify({
      engine,
      name,
      q,
      matches: first.total_records,
      medianMs: round(median(samples)),
      p99Ms: round(samples[Math.floor(samples.length * 0.99)] ?? 0),
      nodeCpuMsPerSearch: round((cpu.user + cpu.system) / 1000 / times),
    }),
  );
}
await database.close();
