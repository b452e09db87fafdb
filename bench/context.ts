import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { parseDatabaseUrl } from '../src/config.js';
import { type Database, openDatabase } from '../src/db/database.js';
import { epochMillis, microsFromMillis } from '../src/shared/time.js';
import type { BenchDataset } from './datasets.js';
import { benchEventStart } from './scenarios.js';
import { startServer } from './server.js';
import { binPath, dataDir } from './util.js';

const run = promisify(execFile);

/** Runs the real bin against the dataset's database (what an operator would type). */
export async function cli(databaseUrl: string, args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [binPath, ...args], {
    cwd: dataDir,
    env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' },
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout;
}

/** A fresh API key of the target community, created with `community-admin key create`. */
export async function createBenchKey(dataset: BenchDataset): Promise<string> {
  const out = await cli(dataset.databaseUrl, ['key', 'create', '--community', dataset.target.communityId, '--label', 'bench', '--json']);
  return (JSON.parse(out) as { key: string }).key;
}

async function withDatasetDatabase<T>(dataset: BenchDataset, use: (database: Database) => Promise<T>): Promise<T> {
  const database = openDatabase(parseDatabaseUrl(dataset.databaseUrl), { poolSize: 1 });
  try {
    return await use(database);
  } finally {
    await database.close();
  }
}

/** A published event of the target community, the one event get asks for. */
export function publishedEventId(dataset: BenchDataset): Promise<string> {
  return withDatasetDatabase(dataset, async (database) => {
    const row = await database.db
      .selectFrom('calendar_events')
      .select('id')
      .where('community_id', '=', dataset.target.communityId)
      .where('status', '=', 'published')
      .orderBy('id')
      .limit(1)
      .executeTakeFirstOrThrow();
    return row.id;
  });
}

/** Removes what the writing scenarios added (members with bench emails, idempotency keys), so the cached dataset stays as built. */
export function removeBenchWrites(dataset: BenchDataset): Promise<number> {
  return withDatasetDatabase(dataset, async (database) => {
    const members = await database.db
      .deleteFrom('members')
      .where('community_id', '=', dataset.target.communityId)
      .where('email_norm', 'like', 'bench-%@bench.example.com')
      .executeTakeFirst();
    // Events created by events.create start at benchEventStart (no generated event does) and have no
    // hosts, speakers, tags or attendees: the row is all there is.
    await database.db
      .deleteFrom('calendar_events')
      .where('community_id', '=', dataset.target.communityId)
      .where('start_at', '=', microsFromMillis(epochMillis(Date.parse(benchEventStart))))
      .execute();
    await database.db.deleteFrom('idempotency_keys').where('community_id', '=', dataset.target.communityId).execute();
    if (database.sqlite) database.sqlite.pragma('wal_checkpoint(TRUNCATE)');
    return Number(members.numDeletedRows);
  });
}

/**
 * Checks once that the variant servers really are what they claim (the hooks rewrite functions
 * by name; a renamed function would silently leave the server whole).
 */
export async function verifyVariants(dataset: BenchDataset): Promise<void> {
  const sentinel = 987_654_321;
  const noCount = await startServer({
    databaseUrl: dataset.databaseUrl,
    variant: 'no-count',
    env: { BENCH_FIXED_TOTAL: String(sentinel) },
  });
  const key = await createBenchKey(dataset);
  try {
    for (const path of ['/admin/v0/calendar_events?per_page=1', '/admin/v0/feeds/home/posts?per_page=1']) {
      const response = await fetch(`${noCount.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
      const body = (await response.json()) as { data?: { total_records?: number } };
      if (body.data?.total_records !== sentinel)
        throw new Error(`the no-count variant does not replace the count of ${path}: update bench/hooks/variant-hooks.mjs`);
    }
  } finally {
    await noCount.stop();
  }
  const principal = JSON.stringify({ keyId: 'bench-no-guards', communityId: dataset.target.communityId, plan: 'enterprise' });
  const noGuards = await startServer({ databaseUrl: dataset.databaseUrl, variant: 'no-guards', env: { BENCH_PRINCIPAL: principal } });
  try {
    const response = await fetch(`${noGuards.url}/admin/v0/calendar_events?per_page=1`);
    await response.arrayBuffer();
    if (response.status !== 200)
      throw new Error(`the no-guards variant still asks for a key (${response.status}): update bench/hooks/variant-hooks.mjs`);
  } finally {
    await noGuards.stop();
  }
}
