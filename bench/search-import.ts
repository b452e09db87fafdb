// The search index's cost on the import (docs/search.md): `community-admin import` of 100k posts
// (the seed's posts: rich text with mentions, emoji, links) into an empty community, by two builds
// of the server, alternately so that the machine's background load hits both alike. Each run is a
// fresh database: SQLite file, or (with BENCH_DATABASE_URL) a fresh PostgreSQL schema.
// Usage: node --import tsx bench/search-import.ts BASE_CHECKOUT [POSTS (100000)] [ROUNDS (2)]
// BASE_CHECKOUT is a built checkout, either of the commit before search was merged (57e565b: the
// import "before search existed", but also without everything merged since), e.g.
//   git archive 57e565b | tar -x -C /tmp/base && ln -s "$PWD/node_modules" /tmp/base/ && (cd /tmp/base && npx tsc -p tsconfig.build.json)
// or of this commit with the index's writes cut out (`indexPosts` returning at once in
// src/modules/search/queries/entries.ts): the search index's own cost, everything else alike.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { feedRecord, postRecord } from '../src/cli/seed/content.js';
import { profileRecord } from '../src/cli/seed/people.js';
import { SeedWorld } from '../src/cli/seed/world.js';
import { freshDatabaseUrl, writeImportSections } from './import-timing.js';
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
  await writeImportSections(path, [
    ['profiles', world.options.counts.profiles, (i) => profileRecord(world, i)],
    ['feeds', world.options.counts.feeds, (i) => feedRecord(world, i)],
    ['posts', posts, (i) => postRecord(world, i)],
  ]);
}

/** "0m4.272s" (bash `times`) in seconds. */
const secondsOf = (text: string) => {
  const match = /(\d+)m([\d.]+)s/.exec(text);
  return match ? Number(match[1]) * 60 + Number(match[2]) : Number.NaN;
};

/**
 * Wall and CPU (user + system) seconds of `import FILE` by the build in `checkout` (its bin, pinned
 * to core 0) into a fresh database. CPU is the steadier figure on a machine shared with other work.
 */
async function importSeconds(checkout: string, file: string): Promise<{ wall: number; cpu: number }> {
  const bin = join(checkout, 'bin/community-admin.js');
  const env = {
    PATH: process.env.PATH,
    DATABASE_URL: await freshDatabaseUrl(postgresUrl ? 'postgres' : 'sqlite', postgresUrl, 'search_import'),
    LOG_LEVEL: 'silent',
  };
  const cli = async (args: string[]) => (await run(process.execPath, [bin, ...args], { cwd: dataDir, env, maxBuffer: 1 << 20 })).stdout;
  await cli(['migrate', '--json']);
  const community = JSON.parse(await cli(['community', 'create', '--name', 'Import', '--plan', 'enterprise', '--json'])) as { id: string };
  // bash's `times` prints the children's user and system time on its second line.
  const command = [
    'bash',
    '-c',
    '"$@"; times',
    'import',
    ...pinned(0, [process.execPath, bin, 'import', file, '--community', community.id, '--json']),
  ];
  const started = performance.now();
  const { stdout } = await run(command[0] as string, command.slice(1), { cwd: dataDir, env, maxBuffer: 1 << 20 });
  const wall = (performance.now() - started) / 1000;
  const lines = stdout.trim().split('\n');
  if ((JSON.parse(lines[0] ?? '{}') as Record<string, number>).posts !== posts) throw new Error(`import reported ${stdout}`);
  const [user = '', system = ''] = (lines.at(-1) ?? '').split(/\s+/);
  return { wall: Math.round(wall * 10) / 10, cpu: Math.round((secondsOf(user) + secondsOf(system)) * 10) / 10 };
}

async function main(): Promise<void> {
  if (!base || !existsSync(join(base, 'dist'))) throw new Error('usage: search-import.ts BASE_CHECKOUT (built) [POSTS] [ROUNDS]');
  const file = join(dataDir, `search-import-${posts}.data`);
  if (!existsSync(file)) {
    log.line(`writing the import file of ${posts} posts`);
    await writeImportFile(file);
  }
  const seconds: Record<'base' | 'head', { wall: number; cpu: number }[]> = { base: [], head: [] };
  for (let round = 0; round < rounds; round++) {
    for (const [name, checkout] of [
      ['base', base],
      ['head', head],
    ] as const) {
      seconds[name].push(await importSeconds(checkout, file));
      log.line(`round ${round + 1} ${name}: ${JSON.stringify(seconds[name].at(-1))}`);
    }
  }
  const ratio = (key: 'wall' | 'cpu') =>
    Math.round((median(seconds.head.map((s) => s[key])) / median(seconds.base.map((s) => s[key]))) * 100) / 100;
  const engine = postgresUrl ? 'postgres' : 'sqlite';
  process.stdout.write(`${JSON.stringify({ engine, posts, rounds, seconds, wallRatio: ratio('wall'), cpuRatio: ratio('cpu') })}\n`);
}

await main();
