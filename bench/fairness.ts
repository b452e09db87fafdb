// Fairness between keys (issue 41, part 2; docs/performance.md, "Fairness"): in a community of 40k
// posts, key A searches for a plain word found in about a third of them on 50 connections, paced
// within its 50 requests/s and honouring Retry-After, while key B (another community) pages its
// uncached event list at ~35 requests/s on 4 connections. Reported: B's p50/p99 alone and with A
// running, on the server with the cost budget (the defaults) and on one without it (a cost budget
// too large to refuse anything; its heavy searches still take turns on SQLite's read thread), all in the same run, phases interleaved; A's answers by status; the
// server's CPU per phase; the machine's load beside every figure.
// Usage: npm run bench:fairness [-- POSTS]   (posts in A's community, default 40,000)
// BENCH_FAIRNESS_SECONDS (20) per phase, BENCH_FAIRNESS_ROUNDS (2), BENCH_FAIRNESS_ENGINE (sqlite | postgres,
// the latter with BENCH_DATABASE_URL).
import { Agent, request } from 'node:http';
import { loadavg } from 'node:os';
import { parseDatabaseUrl } from '../src/config.js';
import { type Database, type Engine, openDatabase } from '../src/db/database.js';
import { createApiKey } from '../src/modules/api-keys/api-keys.commands.js';
import { searchPosts } from '../src/modules/search/search.reads.js';
import { parseSearchQuery } from '../src/modules/search/search.rules.js';
import { systemClock } from '../src/shared/clock.js';
import { readCpuTicks } from './proc-cpu.js';
import { eventsCommunity, searchCorpus } from './search-dataset.js';
import { type RunningServer, startServer } from './server.js';
import { Log, sleep } from './util.js';

const postsOfA = Number(process.argv[2] ?? 40_000);
const phaseSeconds = Number(process.env.BENCH_FAIRNESS_SECONDS ?? 20);
const rounds = Number(process.env.BENCH_FAIRNESS_ROUNDS ?? 2);
const engine = (process.env.BENCH_FAIRNESS_ENGINE ?? 'sqlite') as Engine;
const postgresUrl = process.env.BENCH_DATABASE_URL ?? '';
const log = new Log();

const open = (url: string): Database => {
  const target = parseDatabaseUrl(url);
  if (target.engine === 'sqlite') return openDatabase(target);
  const schema = /search_path%3D([a-z0-9_]+)/i.exec(url)?.[1];
  return openDatabase(target, schema ? { schema } : {});
};

const load = () => Math.round((loadavg()[0] ?? 0) * 10) / 10;

/**
 * The corpus' most frequent plain words (ranks 0-9) are all common words, and the next one is in
 * under a fifth of the posts: so A's community is the corpus' target community with this word added
 * to the end of every third post's body (searchCorpus's `everyThird`).
 */
const plainWord = 'harbour';

interface Sample {
  ms: number;
  status: number;
}

/** One GET on a keep-alive agent: status, Retry-After, and the time from send to the last byte. */
function get(agent: Agent, url: URL, headers: Record<string, string>): Promise<{ status: number; retryAfter: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request({ agent, host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, headers }, (res) => {
      res.resume();
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, retryAfter: Number(res.headers['retry-after'] ?? 0), ms: performance.now() - started }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/** B: `connections` loops, each sending on its own schedule (rate / connections per second), from send to answer. */
async function paced(url: URL, headers: Record<string, string>, rate: number, connections: number, until: number): Promise<Sample[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const samples: Sample[] = [];
  const interval = (1000 * connections) / rate;
  await Promise.all(
    Array.from({ length: connections }, async (_, c) => {
      let next = performance.now() + (interval * c) / connections;
      while (next < until) {
        const wait = next - performance.now();
        if (wait > 0) await sleep(wait);
        const { status, ms } = await get(agent, url, headers);
        samples.push({ status, ms });
        // Late (the server or this client waited for a core) slots are skipped, not sent in a burst:
        // a burst would exceed B's own request budget and measure its 429s.
        next = Math.max(next + interval, performance.now());
      }
    }),
  );
  agent.destroy();
  return samples;
}

/** A: 50 loops sharing one schedule of at most `rate` requests per second; a 429 sleeps its connection for Retry-After. */
async function greedy(url: URL, headers: Record<string, string>, rate: number, connections: number, until: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const statuses: Record<number, number> = {};
  let slot = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) {
        slot = Math.max(slot + 1000 / rate, performance.now());
        const wait = slot - performance.now();
        if (wait > 0) await sleep(wait);
        if (performance.now() >= until) break;
        const { status, retryAfter } = await get(agent, url, headers);
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (status === 429) await sleep(Math.max(1, retryAfter) * 1000);
      }
    }),
  );
  agent.destroy();
  return statuses;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};
const round1 = (n: number) => Math.round(n * 10) / 10;

async function phase(name: string, server: RunningServer, keys: { a: string; b: string }, paths: { a: string; b: string }, withA: boolean) {
  const cpuBefore = readCpuTicks(server.pid);
  const until = performance.now() + phaseSeconds * 1000;
  const [samples, statusesOfA] = await Promise.all([
    paced(new URL(paths.b, server.url), { authorization: `Bearer ${keys.b}` }, 35, 4, until),
    withA ? greedy(new URL(paths.a, server.url), { authorization: `Bearer ${keys.a}` }, 50, 50, until) : Promise.resolve({}),
  ]);
  const cpuAfter = readCpuTicks(server.pid);
  const ms = samples.map((s) => s.ms);
  const figures = {
    phase: name,
    requestsOfB: samples.length,
    nonOkOfB: samples.filter((s) => s.status !== 200).length,
    statusesOfB: Object.fromEntries(
      [...new Set(samples.map((s) => s.status))].map((status) => [status, samples.filter((s) => s.status === status).length]),
    ),
    p50OfB: round1(percentile(ms, 50)),
    p99OfB: round1(percentile(ms, 99)),
    maxOfB: round1(Math.max(...ms)),
    statusesOfA,
    serverCpuShare:
      cpuBefore && cpuAfter
        ? Math.round(((cpuAfter.user + cpuAfter.sys - cpuBefore.user - cpuBefore.sys) / 100 / phaseSeconds) * 100) / 100
        : null,
    loadAverage: load(),
  };
  log.line(JSON.stringify(figures));
  return figures;
}

async function main(): Promise<void> {
  const corpus = await searchCorpus(engine, postsOfA * 5, postgresUrl, log, 0, plainWord);
  const database = open(corpus.databaseUrl);
  const communityA = corpus.communityIds[0] as string;
  const communityB = await eventsCommunity(database);
  const q = plainWord;
  const matches = (await searchPosts(database, communityA, parseSearchQuery(q), { feedId: undefined, authorProfileId: undefined }, 0, 1))
    .total_records;
  const keyA = await createApiKey({ database, clock: systemClock, communityId: communityA }, { label: 'fairness-a' });
  const keyB = await createApiKey({ database, clock: systemClock, communityId: communityB }, { label: 'fairness-b' });
  await database.close();
  log.line(`A searches "${q}": ${matches} of ${corpus.postsPerCommunity[0]} posts`);
  const paths = { a: `/admin/v0/search?q=${encodeURIComponent(q)}`, b: '/admin/v0/calendar_events?page=3&per_page=20' };
  const keys = { a: keyA.key, b: keyB.key };
  // Both servers with the operator's request budget (50/s): A stays within it by its own pacing.
  const common = { RESPONSE_CACHE_MB: '0', RATE_LIMIT_PER_SECOND: '50', RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '1000' };
  const withBudget = await startServer({ databaseUrl: corpus.databaseUrl, env: common });
  const withoutBudget = await startServer({
    databaseUrl: corpus.databaseUrl,
    env: { ...common, RATE_LIMIT_COST_PER_SECOND: '1000000000' },
  });
  const phases: ({ budget: string } & Awaited<ReturnType<typeof phase>>)[] = [];
  try {
    for (const server of [withBudget, withoutBudget]) {
      // Warm-up: JIT, statement caches, pages of both communities.
      await phase('warm-up', server, keys, paths, true);
    }
    for (let r = 0; r < rounds; r++) {
      phases.push({ budget: 'cost budget', ...(await phase('B alone', withBudget, keys, paths, false)) });
      phases.push({ budget: 'cost budget', ...(await phase('B with A', withBudget, keys, paths, true)) });
      await sleep(2000);
      phases.push({ budget: 'no cost budget', ...(await phase('B alone', withoutBudget, keys, paths, false)) });
      phases.push({ budget: 'no cost budget', ...(await phase('B with A', withoutBudget, keys, paths, true)) });
      await sleep(2000);
    }
  } finally {
    await withBudget.stop();
    await withoutBudget.stop();
  }
  const ratio = (budget: string) => {
    const of = (name: string) => phases.filter((p) => p.budget === budget && p.phase === name).map((p) => p.p99OfB);
    const alone = of('B alone');
    const withA = of('B with A');
    return withA.map((p99, i) => round1(p99 / (alone[i] as number)));
  };
  const report = {
    engine,
    postsOfA: corpus.postsPerCommunity[0],
    query: q,
    matches,
    phaseSeconds,
    ratioP99WithAToAlone: { 'cost budget': ratio('cost budget'), 'no cost budget': ratio('no cost budget') },
    phases,
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}

await main();
