// EXPLAIN (ANALYZE, BUFFERS) of the event list's page query on a PostgreSQL bench dataset: the plain
// OFFSET query (what every page ran before ids-first) and the ids-first query (what deep pages run
// now), at page 3 and page 51 of 20, upcoming, published. Each is run three times; the last plan
// is printed (hot). Usage (after `npm run bench -- --build-only --sizes 100k` with BENCH_DATABASE_URL):
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench node --import tsx bench/pg-explain.ts [100k|1m]
import pg from 'pg';
import { type Database, openDatabase } from '../src/db/database.js';
import { calendarEventsPageQuery } from '../src/modules/calendar-events/queries/list.js';
import { epochMillis, microsFromMillis } from '../src/shared/time.js';

const url = process.env.BENCH_DATABASE_URL;
if (!url) throw new Error('BENCH_DATABASE_URL is required');
const schema = `bench_${process.argv[2] ?? '100k'}`;
const database: Database = openDatabase({ engine: 'postgres', url }, { schema, poolSize: 1 });
const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
await client.connect();
const { rows } = await client.query<{ id: string }>('select community_id as id from calendar_events limit 1');
const communityId = rows[0]?.id ?? '';
const referenceAt = microsFromMillis(epochMillis(Date.now()));
const filter = { status: 'published' as const, timeFilter: 'upcoming' as const, referenceAt };
for (const page of [3, 51]) {
  for (const deep of [false, true]) {
    const compiled = calendarEventsPageQuery(database.db, communityId, filter, 20, (page - 1) * 20, deep).compile();
    let plan = '';
    for (let run = 0; run < 3; run++) {
      const result = await client.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) ${compiled.sql}`, [...compiled.parameters]);
      plan = result.rows.map((row) => row['QUERY PLAN']).join('\n');
    }
    process.stdout.write(
      `### ${schema}, page ${page} of 20, ${deep ? 'ids first, then the page rows (after)' : 'plain OFFSET query (before)'}\n\n\`\`\`\n${plan}\n\`\`\`\n\n`,
    );
  }
}
await client.end();
await database.close();
