// In-process cost of each measured search kind (docs/search.md), robust to a loaded machine: the
// median milliseconds of a whole search (hits, the page's rows, rendering) on the corpus' target
// community, and of the hits statement alone; with EXPLAIN=1 the plans.
// Usage: node --import tsx bench/search-inprocess.ts POSTS sqlite|postgres [RUNS (200)]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { parseDatabaseUrl } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { searchPosts } from '../src/modules/search/search.reads.js';
import { parseSearchQuery } from '../src/modules/search/search.rules.js';
import { readCpuTicks } from './proc-cpu.js';
import type { SearchCorpus } from './search-dataset.js';
import { searchQueries } from './search-queries.js';
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
const ticksPerMs = 0.1; // CLK_TCK 100

/** CPU ticks of the PostgreSQL backends serving this database (the server's side of a search), or 0 on SQLite. */
async function backendTicks(): Promise<number> {
  if (target.engine !== 'postgres') return 0;
  const { rows } = await sql<{
    pid: number;
  }>`select pid from pg_stat_activity where datname = current_database() and backend_type = 'client backend'`.execute(database.db);
  return rows.reduce((sum, row) => {
    const ticks = readCpuTicks(row.pid);
    return sum + (ticks ? ticks.user + ticks.sys : 0);
  }, 0);
}
for (const { name, q } of searchQueries) {
  if (only && only !== name) continue;
  const parsed = parseSearchQuery(q);
  const first = await searchPosts(database, communityId, parsed, filters, 0, 10);
  const times = name === 'frequent word' ? Math.max(5, Math.floor(Number(runsArg) / 20)) : Number(runsArg);
  for (let i = 0; i < Math.min(20, times); i++) await searchPosts(database, communityId, parsed, filters, 0, 10);
  const samples: number[] = [];
  const dbStart = await backendTicks();
  const cpuStart = process.cpuUsage();
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    await searchPosts(database, communityId, parsed, filters, 0, 10);
    samples.push(performance.now() - started);
  }
  const cpu = process.cpuUsage(cpuStart);
  const dbTicks = (await backendTicks()) - dbStart;
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
      ...(target.engine === 'postgres' ? { postgresCpuMsPerSearch: round(dbTicks / ticksPerMs / times) } : {}),
    }),
  );
}
await database.close();
