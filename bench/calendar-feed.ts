// Calendar feed figures (docs/calendar-feeds.md, issue 40), on a real server process:
//   1. a feed of 1,000 events served from the response cache: req/s with wrk (50 connections,
//      keep-alive, server pinned to core 0, wrk to core 1), gzip (what calendar apps ask for),
//      uncompressed and 304s; each beside its ceiling, a bare node:http server answering the same
//      bytes (bench/ceiling-server.ts), in interleaved runs: on a shared machine the ratio is the figure;
//   2. its first render after a change: the time of the first GET after an event's title changed
//      through the API (median of a few rounds), beside the time of a cached GET of the same bytes;
//   3. the render alone, in this process (no HTTP): the feed read with an empty response cache;
//   4. the feed's bytes for 1,000 events.
// Usage: npm run bench:calendar [-- EVENTS, default 1000]
// SQLite in a temp directory by default; BENCH_DATABASE_URL=postgres://... for PostgreSQL (own schema).
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CountCache } from '../src/caching/count-cache.js';
import { ResponseCache } from '../src/caching/response-cache.js';
import { serverNodeOptions } from '../src/cli/server-node-options.js';
import { parseDatabaseUrl } from '../src/config.js';
import { migrateToLatest, openDatabase } from '../src/db/database.js';
import { runImport } from '../src/import/run-import.js';
import { createApiKey } from '../src/modules/api-keys/api-keys.commands.js';
import { selectLiveFeedByTokenHash } from '../src/modules/calendar-feeds/calendar-feeds.queries.js';
import { readCalendarFeed } from '../src/modules/calendar-feeds/calendar-feeds.reads.js';
import { tokenHash } from '../src/modules/calendar-feeds/calendar-feeds.rules.js';
import { createCommunity } from '../src/modules/communities/communities.commands.js';
import { systemClock } from '../src/shared/clock.js';
import { openBenchDatabase } from './bench-database.js';
import { assertServerProcess, cpuPerRequest, readCpuTicks } from './proc-cpu.js';
import { freePort, pinned } from './server.js';
import { findWrk } from './wrk-client.js';

const eventCount = Number(process.argv[2] ?? 1000);
const runs = Number(process.env.BENCH_RUNS ?? 3);
const root = fileURLToPath(new URL('../', import.meta.url));
const bin = join(root, 'bin/community-admin.js');
const day = 86_400_000;

const words = (
  'community meetup talk workshop hands-on demo questions laptop snacks café speakers open source release ' +
  'design review testing data privacy accessibility mentoring newcomers welcome venue floor room doors ' +
  'pizza drinks livestream recording slides notes contributors maintainers roadmap feedback lightning ' +
  'Berlin Pune Lagos Lima Toronto Nairobi Kraków Osaka São Paulo chapter volunteers sponsors thanks'
).split(' ');

/** Text of about `length` characters drawn from the words, different for each seed (prose compresses about as much). */
function prose(seed: number, length: number): string {
  let state = seed * 2654435761;
  const next = () => {
    state = (state * 1103515245 + 12345) >>> 0;
    return state;
  };
  let text = '';
  while (text.length < length) text += `${words[next() % words.length]}${next() % 9 === 0 ? '. ' : next() % 7 === 0 ? ', ' : ' '}`;
  return text.slice(0, length);
}

/** A realistic event: a paragraph of description (450 characters), a place, a link, a tag and two reminders. */
function eventRecord(n: number): Record<string, unknown> {
  const start = Date.now() + ((n % 400) - 20) * day + (n % 7) * 3_600_000;
  const text = prose(n + 1, 450);
  return {
    id: `cal${String(n).padStart(9, '0')}`,
    title: `Community meetup #${n}, ${['Berlin', 'Pune', 'Lagos', 'Lima'][n % 4]}`,
    status: 'published',
    publish_to_site: true,
    start_date: new Date(start).toISOString(),
    end_date: new Date(start + 2 * 3_600_000).toISOString(),
    location: `Hall ${n % 9}, Main Street ${n}`,
    link: `https://meet.example.org/e/${n}`,
    tags: [{ id: `t${n % 6}`, label: ['Meetup', 'Workshop', 'Talk', 'Social', 'Hackathon', 'Online'][n % 6] as string }],
    reminders_config: [{ minutes: 15 }, { minutes: 1440 }],
    description_chat_blocks: [
      { type: 'rich_text', block_id: 'd', elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text }] }] },
    ],
  };
}

async function startServer(databaseUrl: string, port: number): Promise<ChildProcess> {
  const args = [process.execPath, ...serverNodeOptions(parseDatabaseUrl(databaseUrl)), bin, 'serve'];
  const [command, ...rest] = pinned(0, args) as [string, ...string[]];
  const child = spawn(command, rest, {
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      DATABASE_URL: databaseUrl,
      RATE_LIMIT_PER_SECOND: '1000000000',
      RATE_LIMIT_CALENDAR_PER_SECOND: '1000000000',
      RATE_LIMIT_CALENDAR_ADDRESS_PER_SECOND: '1000000000',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) return child;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error('the server did not start');
}

/** Milliseconds of one GET read to its end (without gzip unless asked), and its bytes. */
async function timedGet(url: string, headers: Record<string, string> = {}): Promise<{ ms: number; bytes: number; status: number }> {
  const start = performance.now();
  const response = await rawGet(url, headers);
  return { ms: performance.now() - start, bytes: response.body.length, status: response.status };
}

/** wrk's req/s against the URL (one thread, 50 connections, 10 s, pinned to core 1). */
function wrkRate(wrk: string, url: string, headers: string[] = []): { rps: number; requests: number; output: string } {
  const args = [wrk, '-t1', '-c50', '-d10s', '--latency', ...headers.flatMap((header) => ['-H', header]), url];
  const run = spawnSync(pinned(1, args)[0] as string, pinned(1, args).slice(1), { encoding: 'utf8' });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(run.stdout)?.[1] ?? Number.NaN);
  const requests = Number(/(\d+) requests in/.exec(run.stdout)?.[1] ?? Number.NaN);
  return { rps, requests, output: run.stdout };
}

/** One GET with its bytes as sent (fetch would undo the gzip). */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    }).on('error', reject);
  });
}

/** A bare node:http server pinned to core 0 answering exactly the response `url` answered with these headers. */
async function startCeiling(
  url: string,
  headers: Record<string, string>,
  dir: string,
  name: string,
): Promise<{ url: string; stop: () => Promise<void> }> {
  const response = await rawGet(url, headers);
  const kept = Object.entries(response.headers).filter(
    (entry): entry is [string, string] =>
      typeof entry[1] === 'string' && !['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(entry[0]),
  );
  const capture = join(dir, `${name}.json`);
  writeFileSync(capture, JSON.stringify({ status: response.status, headers: kept, bodyBase64: response.body.toString('base64') }));
  const port = await freePort();
  const args = pinned(0, [process.execPath, '--import', 'tsx', join(root, 'bench/ceiling-server.ts')]);
  const child = spawn(args[0] as string, args.slice(1), {
    env: { PATH: process.env.PATH ?? '', CEILING_CAPTURE: capture, CEILING_PORT: String(port) },
    stdio: 'inherit',
    cwd: root,
  });
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(`http://127.0.0.1:${port}/`);
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    url: `http://127.0.0.1:${port}/`,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] as number;

async function main(): Promise<void> {
  const wrk = findWrk();
  if (!wrk) throw new Error('wrk is needed: apt-get install wrk');
  const { database, url, cleanup } = await openBenchDatabase('calendar');
  await migrateToLatest(database);
  const community = await createCommunity({ database, clock: systemClock }, { name: 'Bench calendar', plan: 'free' });
  const { key } = await createApiKey({ database, clock: systemClock, communityId: community.id }, { label: 'bench' });
  await runImport(
    { database, clock: systemClock, communityId: community.id },
    { calendar_events: Array.from({ length: eventCount }, (_, i) => eventRecord(i)) },
  );
  await database.close();
  const port = await freePort();
  const server = await startServer(url, port);
  assertServerProcess(server.pid as number);
  /** The server's CPU (user + system, ms) while `step` runs: steadier than wall time on a shared machine. */
  const serverCpuMs = async <T>(step: () => Promise<T>): Promise<{ result: T; cpuMs: number }> => {
    const before = readCpuTicks(server.pid);
    const result = await step();
    const used = cpuPerRequest(before, readCpuTicks(server.pid), 1);
    return { result, cpuMs: used ? (used.userUs + used.sysUs) / 1000 : Number.NaN };
  };
  const base = `http://127.0.0.1:${port}`;
  const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  let report = '';
  let feedToken = '';
  try {
    const created = await fetch(`${base}/admin/v0/calendar_feeds`, { method: 'POST', headers: auth, body: '{}' });
    const feedUrl = ((await created.json()) as { data: { url: string } }).data.url;
    feedToken = /\/calendar\/([^/]+)\.ics$/.exec(feedUrl)?.[1] ?? '';
    const firstEver = await timedGet(feedUrl);
    const afterChange: number[] = [];
    const afterChangeCpu: number[] = [];
    const cached: number[] = [];
    for (let round = 0; round < 9; round++) {
      const patched = await fetch(`${base}/admin/v0/calendar_events/cal${String(round * 7).padStart(9, '0')}`, {
        method: 'PATCH',
        headers: auth,
        body: JSON.stringify({ title: `Renamed meetup, round ${round}` }),
      });
      if (patched.status !== 200) throw new Error(`PATCH answered ${patched.status}`);
      const timed = await serverCpuMs(() => timedGet(feedUrl));
      afterChange.push(timed.result.ms);
      afterChangeCpu.push(timed.cpuMs);
      cached.push((await timedGet(feedUrl)).ms);
    }
    // fetch asks for gzip by itself (and undoes it): the plain and the gzip answers are read raw.
    const plain = await rawGet(feedUrl, {});
    const etag = plain.headers.etag as string;
    const gzipHeaders = { 'accept-encoding': 'gzip' };
    const gzipBytes = (await rawGet(feedUrl, gzipHeaders)).body.length;
    for (let i = 0; i < 50; i++) await timedGet(feedUrl, gzipHeaders); // warm-up of the cached paths
    const dir = mkdtempSync(join(tmpdir(), 'bench-calendar-ceiling-'));
    const scenarios: { name: string; headers: string[]; fetchHeaders: Record<string, string> }[] = [
      { name: 'gzip', headers: ['Accept-Encoding: gzip'], fetchHeaders: gzipHeaders },
      { name: 'identity', headers: [], fetchHeaders: {} },
      { name: '304', headers: [`If-None-Match: ${etag}`], fetchHeaders: { 'if-none-match': etag } },
    ];
    const results: string[] = [];
    let lastOutput = '';
    try {
      for (const scenario of scenarios) {
        const ceiling = await startCeiling(feedUrl, scenario.fetchHeaders, dir, scenario.name);
        const real: number[] = [];
        const bare: number[] = [];
        const cpuUs: number[] = [];
        try {
          for (let run = 0; run < runs; run++) {
            const before = readCpuTicks(server.pid);
            const measured = wrkRate(wrk, feedUrl, scenario.headers);
            const used = cpuPerRequest(before, readCpuTicks(server.pid), measured.requests);
            if (used) cpuUs.push(used.userUs + used.sysUs);
            real.push(measured.rps);
            lastOutput = measured.output;
            bare.push(wrkRate(wrk, ceiling.url, scenario.headers).rps);
          }
        } finally {
          await ceiling.stop();
        }
        const ratios = real.map((rps, i) => rps / (bare[i] as number));
        results.push(
          `cached feed, ${scenario.name}: ${median(real).toFixed(0)} req/s (runs ${real.map((r) => r.toFixed(0)).join(', ')}); ceiling ${median(bare).toFixed(0)} req/s (runs ${bare.map((r) => r.toFixed(0)).join(', ')}); ratio ${median(ratios).toFixed(2)}; server CPU ${median(cpuUs).toFixed(0)} µs per request (one core: ${(1e6 / median(cpuUs)).toFixed(0)} req/s)`,
        );
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const engine = parseDatabaseUrl(url).engine;
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    report = [
      `engine: ${engine}; node ${process.version}; ${eventCount} events; server and ceiling pinned to core 0, wrk (1 thread, 50 connections, 10 s per run, ${runs} runs interleaved) to core 1; load average at the end ${load}`,
      `feed bytes: ${plain.body.length} (${(plain.body.length / eventCount).toFixed(0)} per event); gzip: ${gzipBytes} (${((100 * gzipBytes) / plain.body.length).toFixed(0)}%)`,
      `first GET ever (render, ${eventCount} entries written, cold code): ${firstEver.ms.toFixed(1)} ms`,
      `first GET after a change (render + one entry written): median ${median(afterChange).toFixed(1)} ms of ${afterChange.length} (each: ${afterChange.map((ms) => ms.toFixed(1)).join(', ')}); target <= 50 ms`,
      `  server CPU of that GET (10 ms ticks): median ${median(afterChangeCpu).toFixed(0)} ms (each: ${afterChangeCpu.map((ms) => ms.toFixed(0)).join(', ')})`,
      `cached GET, same bytes, one at a time: median ${median(cached).toFixed(1)} ms`,
      ...results,
      'target: >= 5,000 req/s from cache',
      '',
      'wrk, the last run of the 304s:',
      lastOutput,
    ].join('\n');
  } finally {
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
  }
  // The render alone: the same read the route makes, each time with an empty response cache.
  const inProcess = openDatabase(parseDatabaseUrl(url));
  try {
    const feed = await selectLiveFeedByTokenHash(inProcess.db, tokenHash(feedToken));
    if (!feed) throw new Error('the feed is gone');
    const renders: number[] = [];
    const renderCpu: number[] = [];
    for (let round = 0; round < 12; round++) {
      const deps = { database: inProcess, clock: systemClock, responses: new ResponseCache(64 * 1024 * 1024), counts: new CountCache() };
      const start = performance.now();
      const cpu = process.cpuUsage();
      await readCalendarFeed(deps, community.id, feed, { pastDays: 30, uidHost: '127.0.0.1' });
      renders.push(performance.now() - start);
      const used = process.cpuUsage(cpu);
      renderCpu.push((used.user + used.system) / 1000);
    }
    report += `\nrender alone, in process (read, settle, iCalendar text, ETag): median ${median(renders.slice(2)).toFixed(1)} ms of ${renders.length - 2} after 2 warm-ups (each: ${renders.map((ms) => ms.toFixed(1)).join(', ')}); its CPU: median ${median(renderCpu.slice(2)).toFixed(1)} ms\n`;
  } finally {
    await inProcess.close();
    await cleanup();
  }
  process.stdout.write(report);
}

await main();
