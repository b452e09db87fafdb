// The console's member list (`GET /admin/v0/members`, docs/members.md, "The member list") at 100k
// members of one community: requests per second and p99 of each kind of page, uncached
// (RESPONSE_CACHE_MB=0; the list has no cached read anyway), on the real server process pinned to
// core 0, the load generator (wrk when installed, else autocannon) on core 1. Every page is requested
// for a few seconds before any is measured (the server's JIT and the database's pages warm), and the
// run's reference, the empty event list of the same server, is measured first and last: the machine
// is shared, so the ratio to it is the figure to compare between runs.
// Usage: npm run bench:members [members, default 100000]
// SQLite in a temp directory by default; BENCH_DATABASE_URL=postgres://... for PostgreSQL (own schema).
import { migrateToLatest } from '../src/db/database.js';
import { runImport } from '../src/import/run-import.js';
import { createApiKey } from '../src/modules/api-keys/api-keys.commands.js';
import { createCommunity } from '../src/modules/communities/communities.commands.js';
import { systemClock } from '../src/shared/clock.js';
import { openBenchDatabase } from './bench-database.js';
import type { LoadRequest, LoadResult } from './load-client.js';
import { startServer } from './server.js';
import { median, runCollecting } from './util.js';
import { findWrk, runWrk, wrkVersion } from './wrk-client.js';

const memberCount = Number(process.argv[2] ?? 100_000);
const target = 1000;

const firstNames = [
  'Ada',
  'Zoë',
  'Émile',
  'José',
  'Marie',
  'Noah',
  'Léa',
  'Björn',
  'Chloé',
  'Ana',
  'Łukasz',
  'Maya',
  'Omar',
  'Iñès',
  'Kai',
  'Sam',
];
const lastNames = ['Lovelace', 'Ålander', 'Zola', 'García', 'Curie', 'Smith', 'Dubois', 'Sørensen', 'Martin', 'Novák', 'Kowalski', 'Chen'];

/** A member of the seed: names of mixed case and accents, joined over four years, one in twenty deactivated. */
function seedMember(n: number) {
  const first = firstNames[n % firstNames.length] as string;
  const last = lastNames[Math.floor(n / firstNames.length) % lastNames.length] as string;
  const joined = new Date(Date.UTC(2022, 0, 1) + Math.floor((n * 7919) % (4 * 365 * 86_400)) * 1000).toISOString();
  return {
    id: `e0000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`,
    email: `${first.toLowerCase().normalize('NFKD').replace(/\p{M}/gu, '').replace('ł', 'l')}.${n}@example.org`,
    full_name: `${first} ${last} ${n}`,
    state: n % 20 === 0 ? 'deactivated' : 'active',
    created_at: joined,
    updated_at: joined,
  };
}

/** The pages measured: what the console asks for, and the searches at both ends (many hits, one hit). */
const reference = '/admin/v0/calendar_events';
const firstPage = '/admin/v0/members';
const scenarios: [name: string, path: string][] = [
  ['reference: the empty event list', reference],
  ['first page, as answered by default (10, by name)', firstPage],
  ['first page of 20 by name', '/admin/v0/members?per_page=20'],
  ['newest first', '/admin/v0/members?sort=-joined_at&per_page=20'],
  ['deactivated only', '/admin/v0/members?status=deactivated&per_page=20'],
  ['page 1000 by name', '/admin/v0/members?page=1000&per_page=20'],
  ['search, many hits ("zoe")', '/admin/v0/members?q=zoe&per_page=20'],
  ['search, one hit (an email)', '/admin/v0/members?q=ada.48000%40example&per_page=20'],
  ['reference again', reference],
];

async function measure(spec: LoadRequest): Promise<LoadResult[]> {
  const wrk = findWrk();
  if (wrk) return runWrk(wrk, spec);
  const { stdout, code, stderr } = await runCollecting([process.execPath, '--import', 'tsx', 'bench/load-client.ts', JSON.stringify(spec)]);
  if (code !== 0) throw new Error(`load client failed: ${stderr}`);
  return JSON.parse(stdout) as LoadResult[];
}

async function main(): Promise<void> {
  const { database, url, cleanup } = await openBenchDatabase('members');
  await migrateToLatest(database);
  const community = await createCommunity({ database, clock: systemClock }, { name: 'Bench members', plan: 'free' });
  const { key } = await createApiKey(
    { database, clock: systemClock, communityId: community.id },
    { label: 'bench', permissions: new Set(['members:read', 'calendar_events:read']) },
  );
  const seedStarted = performance.now();
  for (let from = 0; from < memberCount; from += 10_000) {
    const members = Array.from({ length: Math.min(10_000, memberCount - from) }, (_, i) => seedMember(from + i));
    await runImport({ database, clock: systemClock, communityId: community.id }, { members });
  }
  console.log(`seeded ${memberCount} members in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s (${database.engine})`);
  await database.close();

  const server = await startServer({ databaseUrl: url, env: { RESPONSE_CACHE_MB: '0' } });
  const wrk = findWrk();
  console.log(`load: ${wrk ? wrkVersion(wrk) : 'autocannon'}, 10 connections, 1 s warm-up, 3 runs of 5 s; median of the runs`);
  let failed = false;
  const spec = (path: string, seconds: number): LoadRequest => ({
    url: server.url,
    method: 'GET',
    path,
    headers: { authorization: `Bearer ${key}` },
    connections: 10,
    warmupSeconds: 0,
    runs: 1,
    durationSeconds: seconds,
    serverPid: server.pid,
  });
  const rates = new Map<string, number>();
  try {
    for (const [, path] of scenarios) await measure(spec(path, 2));
    for (const [name, path] of scenarios) {
      const probe = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
      const body = (await probe.json()) as { data?: { total_records: number; count: number } };
      if (probe.status !== 200) throw new Error(`${path} answered ${probe.status}`);
      const results = await measure({
        url: server.url,
        method: 'GET',
        path,
        headers: { authorization: `Bearer ${key}` },
        connections: 10,
        warmupSeconds: 1,
        runs: 3,
        durationSeconds: 5,
        serverPid: server.pid,
      });
      const rps = median(results.map((r) => r.rps));
      const p99 = median(results.map((r) => r.p99));
      const errors = results.reduce((sum, r) => sum + r.errors + (r.statuses['4xx/5xx'] ?? 0), 0);
      if (errors > 0) failed = true;
      rates.set(name, rps);
      console.log(
        `${name.padEnd(46)} ${rps.toFixed(0).padStart(6)} req/s  p99 ${p99.toFixed(1).padStart(6)} ms  (${body.data?.count} of ${body.data?.total_records})${errors > 0 ? `  ${errors} errors` : ''}`,
      );
      if (path === firstPage && rps < target) failed = true;
    }
    const referenceRps = ((rates.get('reference: the empty event list') ?? 0) + (rates.get('reference again') ?? 0)) / 2;
    for (const [name] of scenarios.slice(1, -1))
      console.log(`${name.padEnd(46)} ${((rates.get(name) ?? 0) / referenceRps).toFixed(2)} × the reference`);
  } finally {
    await server.stop();
    await cleanup();
  }
  console.log(`target: the default first page ≥ ${target} req/s on SQLite${failed ? ' — NOT MET (or errors)' : ' — met'}`);
  if (failed) process.exitCode = 1;
}

await main();
