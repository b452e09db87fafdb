// Search figures (docs/search.md), on SQLite and (with BENCH_DATABASE_URL) PostgreSQL:
//   1. GET /admin/v0/search uncached (RESPONSE_CACHE_MB=0) at 50 connections on the target community
//      (a fifth of the corpus): one word, two words, a phrase, a prefix, and a very frequent word
//      (reported apart: it matches most posts); req/s, p50, p99 and p99/p50, the server's CPU per request
//      and its ratio to the Home page's; the server's own view of the tail (bench/hooks/loop-delay.mjs:
//      each request's cycle, what the slowest 1% waited behind); p99 at a fixed offered rate of half the
//      Home page's capacity (bench/open-loop.ts, an open loop on core 1); and, for reference, the
//      community's uncached Home page (the same records, no search) and an uncached event list;
//   2. isolation: the same searches of a community in the corpus and in a database holding that
//      community alone (in-process, the median of many runs);
//   3. the index's size on disk against the size of the text it indexes.
// Usage: npm run bench:search [-- POSTS]   (default 1,000,000 posts; a smaller corpus for a quick run)
// BENCH_SEARCH_PARTS (http,isolation,size) and BENCH_SEARCH_ENGINES (sqlite[,postgres]) choose what is measured.
// BENCH_SECONDS (5) per run, BENCH_RUNS (2) measured runs after a warm-up, BENCH_CONNECTIONS (50).
// BENCH_SEARCH_KINDS (names, comma-separated: "one word,prefix") measures only those kinds besides the Home page;
// BENCH_SERVER_NODE_ARGS adds node options to the server (after the engine's own: "--max-semi-space-size=16").
// SEARCH_RANKINGS_MB is passed to the server (default 64: repeated searches are cut from the kept ranked list;
// 0: every request ranks its search anew, the cost of a first search: docs/search.md, "Ranked lists").
// The import's cost is measured by bench/search-import.ts (two builds).
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { parseDatabaseUrl } from '../src/config.js';
import { type Database, type Engine, openDatabase } from '../src/db/database.js';
import { createApiKey } from '../src/modules/api-keys/api-keys.commands.js';
import { searchPosts } from '../src/modules/search/search.reads.js';
import { parseSearchQuery } from '../src/modules/search/search.rules.js';
import { systemClock } from '../src/shared/clock.js';
import { loadGeneratorName, runLoad } from './load.js';
import type { OpenLoopResult } from './open-loop.js';
import { eventsCommunity, type SearchCorpus, searchCorpus } from './search-dataset.js';
import { searchQueries } from './search-queries.js';
import { pinned, startServer } from './server.js';
import { Log, median, runCollecting, sleep } from './util.js';

const total = Number(process.argv[2] ?? process.env.BENCH_SEARCH_POSTS ?? 1_000_000);
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const runs = Number(process.env.BENCH_RUNS ?? 2);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const postgresUrl = process.env.BENCH_DATABASE_URL ?? '';
/** Which figures to take (all by default): `http`, `isolation`, `size`, comma-separated. */
const parts = (process.env.BENCH_SEARCH_PARTS ?? 'http,isolation,size').split(',');
/** Which engines (both when BENCH_DATABASE_URL is set): `sqlite`, `postgres`, comma-separated. */
const engineChoice = process.env.BENCH_SEARCH_ENGINES?.split(',') as Engine[] | undefined;
const log = new Log();

const queries = searchQueries;

const open = (url: string): Database => {
  const target = parseDatabaseUrl(url);
  if (target.engine === 'sqlite') return openDatabase(target);
  const schema = /search_path%3D([a-z0-9_]+)/i.exec(url)?.[1];
  return openDatabase(target, schema ? { schema } : {});
};

interface QueryFigures {
  name: string;
  q: string;
  matches: number;
  rps: number;
  p50: number;
  p99: number;
  /** p99 / p50 of the closed loop, the median of the runs' ratios (the tail target: at most 4). */
  p99ToP50: number;
  cpuMsPerRequest: number | null;
  /** CPU per request as a multiple of the Home page's in the same run. */
  cpuToHome: number | null;
  /** The server's own view of the closed-loop runs (bench/hooks/loop-delay.mjs), the median run's. */
  server: ServerTail | null;
  /** The same closed loop of `connections` from a raw-socket client in Node (bench/open-loop.ts), pinned like wrk: a second opinion of p50/p99. */
  nodeClosedLoop: OpenLoopResult | null;
  /** An open loop at a fixed rate (bench/open-loop.ts): half the Home page's capacity (the frequent word: half its own). */
  openLoop: OpenLoopResult | null;
  /** The machine's 1-minute load average at the end of the runs (2 cores: above 2, the figures measure the neighbours too). */
  loadAverage: number;
}

/** What loop-delay.mjs summarises of a run (its `run: true` line). */
interface ServerTail {
  cycleP50: number;
  cycleP99: number;
  cycleMax: number;
  slowest1pct: { cycle: number; waited: number; served: number; gcInCycle: number; turnsWaited: number };
  median1pct: { cycle: number; waited: number; served: number; gcInCycle: number; turnsWaited: number };
  gc: { count: number; totalMs: number; maxMs: number };
  turnsWaited: Record<string, number>;
  perConnection: { connections: number; min: number; p50: number; max: number };
}

const loopHook = fileURLToPath(new URL('./hooks/loop-delay.mjs', import.meta.url));
const openLoopScript = fileURLToPath(new URL('./open-loop.ts', import.meta.url));

/** Asks the hook for the run so far (SIGUSR2) and returns its summary line. */
async function serverTail(pid: number, file: string): Promise<ServerTail | null> {
  const before = existsSync(file) ? readFileSync(file, 'utf8').length : 0;
  process.kill(pid, 'SIGUSR2');
  for (let i = 0; i < 50; i++) {
    await sleep(20);
    const added = existsSync(file) ? readFileSync(file, 'utf8').slice(before) : '';
    const line = added.split('\n').find((l) => l.startsWith('{"run":true'));
    if (line) return JSON.parse(line) as ServerTail;
  }
  return null;
}

async function openLoop(
  url: string,
  path: string,
  headers: Record<string, string>,
  rate: number,
  closed?: number,
): Promise<OpenLoopResult> {
  const spec = { url, path, headers, rate: Math.max(1, Math.round(rate)), warmupSeconds: 1, durationSeconds: seconds, closed };
  const { code, stdout, stderr } = await runCollecting(
    pinned(1, [process.execPath, '--import', 'tsx', openLoopScript, JSON.stringify(spec)]),
  );
  if (code !== 0) throw new Error(`open loop failed (${code}): ${stderr.trim().slice(-500)}`);
  return JSON.parse(stdout.trim().split('\n').at(-1) as string) as OpenLoopResult;
}

const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

async function loadFigures(corpus: SearchCorpus): Promise<QueryFigures[]> {
  const communityId = corpus.communityIds[0] as string;
  const database = open(corpus.databaseUrl);
  const key = await createApiKey({ database, clock: systemClock, communityId }, { label: 'bench-search' });
  // The uncached event list (a community of 10k events beside the corpus): the tail target names it too.
  const eventsKey = await createApiKey(
    { database, clock: systemClock, communityId: await eventsCommunity(database) },
    { label: 'bench-search-events' },
  );
  await database.close();
  const loopFile = join(mkdtempSync(join(tmpdir(), 'bench-search-')), 'loop.jsonl');
  const server = await startServer({
    databaseUrl: corpus.databaseUrl,
    // The request budget is raised by startServer; the cost budget too, out of the tail's way (its figure is bench/fairness.ts's).
    env: {
      RESPONSE_CACHE_MB: '0',
      RATE_LIMIT_COST_PER_SECOND: '1000000000',
      BENCH_LOOP_FILE: loopFile,
      SEARCH_RANKINGS_MB: process.env.SEARCH_RANKINGS_MB ?? '64',
    },
    // BENCH_SERVER_NODE_ARGS: node options after the engine's own (the last of an option wins), e.g. another semi-space size.
    nodeArgs: ['--import', loopHook, ...(process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? [])],
  });
  const figures: QueryFigures[] = [];
  try {
    // The reference first: the community's Home page, uncached, on the same server in the same minutes.
    // It renders the same ten post records with no search at all: a search cannot be cheaper than it;
    // half its capacity is the open loop's rate.
    const reference = { name: 'Home page (no search)', q: '', path: '/admin/v0/feeds/home/posts', key: key.key };
    const events = { name: 'event list (no search)', q: '', path: '/admin/v0/calendar_events?page=3&per_page=20', key: eventsKey.key };
    // The frequent word last: its backlog (no answer within the load tool's timeout) outlives its run.
    const searches = queries.map(({ name, q }) => ({ name, q, path: `/admin/v0/search?q=${encodeURIComponent(q)}`, key: key.key }));
    const kinds = process.env.BENCH_SEARCH_KINDS?.split(',');
    const measured = [
      reference,
      events,
      ...searches.filter((s) => s.name !== 'frequent word'),
      ...searches.filter((s) => s.name === 'frequent word'),
    ].filter((kind) => kind === reference || !kinds || kinds.includes(kind.name));
    let homeRps = 0;
    let homeCpu: number | null = null;
    for (const { name, q, path, key: bearer } of measured) {
      const headers = { authorization: `Bearer ${bearer}` };
      const first = await fetch(`${server.url}${path}`, { headers });
      const body = (await first.json()) as { data?: { total_records: number } };
      if (first.status !== 200 || !body.data) throw new Error(`${name}: ${first.status} ${JSON.stringify(body)}`);
      const load = { url: server.url, method: 'GET', path, headers, connections, serverPid: server.pid };
      await runLoad({ ...load, warmupSeconds: 0, runs: 1, durationSeconds: 2 });
      const results = [];
      const tails: ServerTail[] = [];
      for (let run = 0; run < runs; run++) {
        await serverTail(server.pid, loopFile);
        results.push(...(await runLoad({ ...load, warmupSeconds: 0, runs: 1, durationSeconds: seconds })));
        const tail = await serverTail(server.pid, loopFile);
        if (tail) tails.push(tail);
      }
      const cpu = results.map((r) => (r.cpu ? (r.cpu.userUs + r.cpu.sysUs) / 1000 : Number.NaN)).filter(Number.isFinite);
      const rps = median(results.map((r) => r.rps));
      const cpuMs = cpu.length > 0 ? Math.round(median(cpu) * 1000) / 1000 : null;
      if (name === reference.name) {
        homeRps = rps;
        homeCpu = cpuMs;
      }
      // Half the Home page's capacity: what a search costing at most 1.5x the page carries at 75% busy.
      // The frequent word and the event list cannot carry that (each costs several pages): half their own capacity instead.
      const rate = name === 'frequent word' || name === events.name ? rps / 2 : homeRps / 2;
      tails.sort((a, b) => a.cycleP99 / a.cycleP50 - b.cycleP99 / b.cycleP50);
      figures.push({
        name,
        q,
        matches: body.data.total_records,
        rps: Math.round(rps),
        p50: median(results.map((r) => r.p50)),
        p99: median(results.map((r) => r.p99)),
        p99ToP50: median(results.map((r) => ratio(r.p99, r.p50))),
        cpuMsPerRequest: cpuMs,
        cpuToHome: cpuMs !== null && homeCpu ? ratio(cpuMs, homeCpu) : null,
        server: tails[Math.floor(tails.length / 2)] ?? null,
        nodeClosedLoop: await openLoop(server.url, path, headers, 0, connections),
        openLoop: await openLoop(server.url, path, headers, rate),
        loadAverage: Math.round((loadavg()[0] ?? 0) * 10) / 10,
      });
      log.line(`${corpus.engine} ${name}: ${JSON.stringify(figures.at(-1))}`);
    }
  } finally {
    await server.stop();
  }
  return figures;
}

/** Median milliseconds of a whole search (hits, then the page's records) of a community, over many runs. */
async function inProcessMs(database: Database, communityId: string, q: string, times: number): Promise<number> {
  const parsed = parseSearchQuery(q);
  const filters = { feedId: undefined, authorProfileId: undefined };
  for (let i = 0; i < 20; i++) await searchPosts(database, communityId, parsed, filters, 0, 10);
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    await searchPosts(database, communityId, parsed, filters, 0, 10);
    samples.push(performance.now() - started);
  }
  return Math.round(median(samples) * 1000) / 1000;
}

async function isolationFigures(engine: Engine, corpus: SearchCorpus) {
  const alone = await searchCorpus(engine, total, postgresUrl, log, 1);
  const inCorpus = open(corpus.databaseUrl);
  const single = open(alone.databaseUrl);
  try {
    const rows = [];
    // The community's id differs between the two databases; its posts, feeds and profiles do not.
    for (const { name, q } of queries.slice(0, 4)) {
      const among = await inProcessMs(inCorpus, corpus.communityIds[1] as string, q, 300);
      const only = await inProcessMs(single, alone.communityIds[0] as string, q, 300);
      rows.push({ name, q, msAmongTen: among, msAlone: only, ratio: Math.round((among / only) * 100) / 100 });
    }
    return rows;
  } finally {
    await inCorpus.close();
    await single.close();
  }
}

async function sizeFigures(corpus: SearchCorpus) {
  const database = open(corpus.databaseUrl);
  try {
    const db = database.db;
    if (corpus.engine === 'sqlite') {
      const text = await sql<{ bytes: number }>`select sum(length(cast(coalesce(json_extract(p.doc, '$.title'), '') as blob))
          + length(cast(coalesce(json_extract(p.doc, '$.body_plaintext'), '') as blob)) + length(cast(s.author_name as blob))) as bytes
        from posts p join post_search s on s.community_id = p.community_id and s.post_id = p.id`.execute(db);
      const index = await sql<{ name: string; bytes: number }>`select name, sum(pgsize) as bytes from dbstat
        where name like 'post_search%' or name in ('post_search_post', 'post_search_author') group by name`.execute(db);
      const posts = await sql<{ bytes: number }>`select sum(pgsize) as bytes from dbstat where name like 'posts%'`.execute(db);
      return { textMb: mb(text.rows[0]?.bytes), indexMb: mb(sum(index.rows)), postsTableMb: mb(posts.rows[0]?.bytes), parts: index.rows };
    }
    const text = await sql<{ bytes: string }>`select sum(octet_length(coalesce((p.doc::json)->>'title', ''))
        + octet_length(coalesce((p.doc::json)->>'body_plaintext', '')) + octet_length(s.author_name)) as bytes
      from posts p join post_search s on s.community_id = p.community_id and s.post_id = p.id`.execute(db);
    const index = await sql<{ name: string; bytes: string }>`select 'post_search (table, toast, indexes)' as name,
        pg_total_relation_size('post_search') as bytes
      union all select 'post_search_terms (GIN)', pg_relation_size('post_search_terms')`.execute(db);
    const posts = await sql<{ bytes: string }>`select pg_total_relation_size('posts') as bytes`.execute(db);
    return {
      textMb: mb(text.rows[0]?.bytes),
      indexMb: mb(index.rows[0]?.bytes),
      postsTableMb: mb(posts.rows[0]?.bytes),
      parts: index.rows,
    };
  } finally {
    await database.close();
  }
}

const mb = (bytes: number | string | undefined) => Math.round(Number(bytes ?? 0) / 1024 / 102.4) / 10;
const sum = (rows: { bytes: number }[]) => rows.reduce((total, row) => total + Number(row.bytes), 0);

async function main(): Promise<void> {
  const engines: Engine[] = engineChoice ?? (postgresUrl ? ['sqlite', 'postgres'] : ['sqlite']);
  const report: Record<string, unknown> = { posts: total, connections, seconds, runs, loadGenerator: loadGeneratorName(), engines: {} };
  for (const engine of engines) {
    const corpus = await searchCorpus(engine, total, postgresUrl, log);
    log.line(`${engine}: corpus of ${corpus.totalPosts} posts (${corpus.postsPerCommunity.join(', ')}), built in ${corpus.buildSeconds} s`);
    const queriesFigures = parts.includes('http') ? await loadFigures(corpus) : [];
    const isolation = parts.includes('isolation') ? await isolationFigures(engine, corpus) : [];
    const size = parts.includes('size') ? await sizeFigures(corpus) : {};
    (report.engines as Record<string, unknown>)[engine] = {
      targetPosts: corpus.postsPerCommunity[0],
      queries: queriesFigures,
      isolation,
      size,
    };
    log.line(`${engine}: ${JSON.stringify({ isolation, size })}`);
  }
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}

await main();
