// Brings a cached search corpus (bench/search-dataset.ts) to the current schema: the server migrates
// at start, the in-process figures (bench/search-inprocess.ts) do not.
// Usage: node --import tsx bench/search-migrate.ts POSTS sqlite|postgres
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDatabaseUrl } from '../src/config.js';
import { migrateToLatest, openDatabase } from '../src/db/database.js';
import type { SearchCorpus } from './search-dataset.js';
import { dataDir } from './util.js';

const [postsArg = '1000000', engine = 'sqlite'] = process.argv.slice(2);
const corpusDir = process.env.BENCH_SEARCH_DIR ?? join(dataDir, 'search');
const corpus = JSON.parse(readFileSync(join(corpusDir, `${engine}-${postsArg}.meta`), 'utf8')) as SearchCorpus;
const target = parseDatabaseUrl(corpus.databaseUrl);
const schema = /search_path%3D([a-z0-9_]+)/i.exec(corpus.databaseUrl)?.[1];
const database = target.engine === 'sqlite' ? openDatabase(target) : openDatabase(target, schema ? { schema } : {});
const started = performance.now();
await migrateToLatest(database);
console.log(`migrated in ${Math.round(performance.now() - started) / 1000} s`);
await database.close();
