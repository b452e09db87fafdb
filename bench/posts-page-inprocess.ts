// In-process cost of the pieces of an uncached page of ten posts (docs/performance.md, issue 41):
// the page statement, the references, the records and the envelope: CPU µs per call, median of 4 rounds of RUNS.
// Usage: node --import tsx bench/posts-page-inprocess.ts SQLITE_FILE [RUNS (2000)]
import { parseDatabaseUrl } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { selectPostsPage } from '../src/modules/posts/posts.queries.js';
import { renderPageRows } from '../src/modules/posts/posts.reads.js';
import { pagedListEnvelope, pageOf } from '../src/schemas/json-text.js';
import { median } from './util.js';

const [file = 'bench/.data/sqlite/10k.db', runsArg = '2000'] = process.argv.slice(2);
const database = openDatabase(parseDatabaseUrl(`sqlite:${file}`));
const { communityId } = await database.db.selectFrom('posts').select('community_id as communityId').limit(1).executeTakeFirstOrThrow();
const runs = Number(runsArg);
const scope = { kind: 'home' } as const;

const time = async (name: string, f: () => unknown) => {
  for (let i = 0; i < 200; i++) await f();
  // CPU time, not wall time: on a shared machine the wall time is mostly waiting for a core.
  const samples: number[] = [];
  for (let round = 0; round < 4; round++) {
    const started = process.cpuUsage();
    for (let i = 0; i < runs; i++) await f();
    const used = process.cpuUsage(started);
    samples.push((used.user + used.system) / runs);
  }
  console.log(`${name.padEnd(28)} ${median(samples).toFixed(1)} µs of CPU (median of 4 rounds of ${runs})`);
};
const rows = await selectPostsPage(database.db, communityId, scope, 'newest', 10, 0);
const records = await renderPageRows(database, communityId, rows);
console.log('page bytes', pagedListEnvelope(pageOf(0, 10, 10000, records), records).length);
await time('page statement', () => selectPostsPage(database.db, communityId, scope, 'newest', 10, 0));
await time('records (with references)', () => renderPageRows(database, communityId, rows));
await time('envelope', () => pagedListEnvelope(pageOf(0, 10, 10000, records), records));
await time('all', async () => {
  const r = await selectPostsPage(database.db, communityId, scope, 'newest', 10, 0);
  const recs = await renderPageRows(database, communityId, r);
  return pagedListEnvelope(pageOf(0, 10, 10000, recs), recs);
});
