// The search index's cost on the import (docs/search.md): `community-admin import` of 100k posts
// (the seed's posts: rich text with mentions, emoji, links) into an empty community, by two builds
// of the server: a checkout of main (no search) and this one, alternately so that the machine's
// background load hits both alike. Each run is a fresh database: SQLite file, or (with
// BENCH_DATABASE_URL) a fresh PostgreSQL schema.
// Usage: node --import tsx bench/search-import.ts BASE_CHECKOUT [POSTS (100000)] [ROUNDS (2)]
// BASE_CHECKOUT is a built checkout of main, e.g.
//   git archive main | tar -x -C /tmp/main && ln -s "$PWD/node_modules" /tmp/main/ && (cd /tmp/main && npx tsc -p tsconfig.build.json)
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, existsSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { feedRecord, postRecord } from '../src/cli/seed/content.js';
import { profileRecord } from '../src/cli/seed/people.js';
import { SeedWorld } from '../src/cli/seed/world.js';
import { ensurePostgresDatabase, withSearchPath } from './datasets.js';
import { pinned } from './server.js';
import { dataDir, Log, median } from './util.js';

const run = promisify(execFile);
const [base = '', postsArg = '100000', roundsArg = '2'] = process.argv.slice(2);
const posts = Number(postsArg);
const rounds = Number(roundsArg);
const postgresUrl = process.env.BENCH_DATABASE_URL ?? '';
const head = join(dataDir, '..', '..');
const log = new Log();

async function writeImportFile(path: string): Promise<void> {
  const world = new SeedWorld({
    seed: 'bench-search-import',
    anchor: Date.parse('2026-11-01T00:00:00Z'),
    counts: { profiles: 5000, members: 0, groups: 0, feeds: 20, posts, events: 0 },
  });
  const partial = `${path}.partial`;
  const out = createWriteStream(partial);
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  const section = async (name: string, count: number, make: (i: number) => unknown, last: boolean) => {
    await write(`${JSON.stringify(name)}:[`);
    for (let i = 0; i < count; i++) await write(`${i === 0 ? '' : ','}\n${JSON.stringify(make(i))}`);
    await write(`]${last ? '' : ','}\n`);
  };
  await write('{');
  await section('profiles', world.options.counts.profiles, (i) => profileRecord(world, i), false);
  await section('feeds', world.options.counts.feeds, (i) => feedRecord(world, i), false);
  await section('posts', posts, (i) => postRecord(world, i), true);
  await write('}\n');
  out.end();
  await once(out, 'finish');
  renameSync(partial, path);
}

async function freshDatabaseUrl(): Promise<string> {
  if (!postgresUrl) {
    const path = join(dataDir, 'sqlite', 'search-import-target.db');
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
    return `sqlite:${path}`;
  }
  await ensurePostgresDatabase(postgresUrl);
  const pg = await import('pg');
  const client = new pg.default.Client({ connectionString: postgresUrl });
  await client.connect();
  await client.query('DROP SCHEMA IF EXISTS bench_search_import CASCADE');
  await client.query('CREATE SCHEMA bench_search_import');
  await client.end();
  return withSearchPath(postgresUrl, 'bench_search_import');
}

/** Seconds of `import FILE` by the build in `checkout` (its bin, pinned to core 0) into a fresh database. */
async function importSeconds(checkout: string, file: string): Promise<number> {
  const bin = join(checkout, 'bin/community-admin.js');
  const env = { PATH: process.env.PATH, DATABASE_URL: await freshDatabaseUrl(), LOG_LEVEL: 'silent' };
  const cli = async (args: string[]) => (await run(process.execPath, [bin, ...args], { cwd: dataDir, env, maxBuffer: 1 << 20 })).stdout;
  await cli(['migrate', '--json']);
  const community = JSON.parse(await cli(['community', 'create', '--name', 'Import', '--plan', 'enterprise', '--json'])) as { id: string };
  const command = pinned(0, [process.execPath, bin, 'import', file, '--community', community.id, '--json']);
  const started = performance.now();
  const { stdout } = await run(command[0] as string, command.slice(1), { cwd: dataDir, env, maxBuffer: 1 << 20 });
  const seconds = (performance.now() - started) / 1000;
  if ((JSON.parse(stdout) as Record<string, number>).posts !== posts) throw new Error(`import reported ${stdout}`);
  return Math.round(seconds * 10) / 10;
}

async function main(): Promise<void> {
  if (!base || !existsSync(join(base, 'dist'))) throw new Error('usage: search-import.ts BASE_CHECKOUT (built) [POSTS] [ROUNDS]');
  const file = join(dataDir, `search-import-${posts}.data`);
  if (!existsSync(file)) {
    log.line(`writing the import file of ${posts} posts`);
    await writeImportFile(file);
  }
  const seconds: Record<'base' | 'head', number[]> = { base: [], head: [] };
  for (let round = 0; round < rounds; round++) {
    for (const [name, checkout] of [
      ['base', base],
      ['head', head],
    ] as const) {
      seconds[name].push(await importSeconds(checkout, file));
      log.line(`round ${round + 1} ${name}: ${seconds[name].at(-1)} s`);
    }
  }
  const ratio = Math.round((median(seconds.head) / median(seconds.base)) * 100) / 100;
  process.stdout.write(`${JSON.stringify({ engine: postgresUrl ? 'postgres' : 'sqlite', posts, rounds, seconds, ratio })}\n`);
}

await main();
