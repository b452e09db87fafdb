// Calendar feed figures (docs/calendar-feeds.md, issue 40), on a real server process:
//   1. a feed of 1,000 events served from the response cache: req/s with wrk (50 connections,
//      keep-alive, server pinned to core 0, wrk to core 1), full answers and 304s;
//   2. its first render after a change: the time of the first GET after an event's title changed
//      through the API (median of a few rounds), beside the time of a cached GET of the same bytes;
//   3. the feed's bytes for 1,000 events.
// Usage: npm run bench:calendar [-- EVENTS, default 1000]
// SQLite in a temp directory by default; BENCH_DATABASE_URL=postgres://... for PostgreSQL (own schema).
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serverNodeOptions } from '../src/cli/server-node-options.js';
import { parseDatabaseUrl } from '../src/config.js';
import { migrateToLatest } from '../src/db/database.js';
import { runImport } from '../src/import/run-import.js';
import { createApiKey } from '../src/modules/api-keys/api-keys.commands.js';
import { createCommunity } from '../src/modules/communities/communities.commands.js';
import { systemClock } from '../src/shared/clock.js';
import { openBenchDatabase } from './bench-database.js';
import { freePort, pinned } from './server.js';
import { findWrk } from './wrk-client.js';

const eventCount = Number(process.argv[2] ?? 1000);
const root = fileURLToPath(new URL('../', import.meta.url));
const bin = join(root, 'bin/community-admin.js');
const day = 86_400_000;

/** A realistic event: a paragraph of description, a place, a link, tags and reminders. */
function eventRecord(n: number): Record<string, unknown> {
  const start = Date.now() + ((n % 400) - 20) * day + (n % 7) * 3_600_000;
  const text = `Session ${n}: hands-on talks, demos and questions; bring a laptop, café & snacks provided. `.repeat(5);
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

/** Milliseconds of one GET read to its end, and its bytes. */
async function timedGet(url: string, headers: Record<string, string> = {}): Promise<{ ms: number; bytes: number; status: number }> {
  const start = performance.now();
  const response = await fetch(url, { headers });
  const body = new Uint8Array(await response.arrayBuffer());
  return { ms: performance.now() - start, bytes: body.byteLength, status: response.status };
}

/** wrk's req/s against the URL (one thread, 50 connections, 10 s, pinned to core 1). */
function wrkRate(wrk: string, url: string, header?: string): { rps: number; output: string } {
  const args = [wrk, '-t1', '-c50', '-d10s', '--latency', ...(header ? ['-H', header] : []), url];
  const run = spawnSync(pinned(1, args)[0] as string, pinned(1, args).slice(1), { encoding: 'utf8' });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(run.stdout)?.[1] ?? Number.NaN);
  return { rps, output: run.stdout };
}

const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] as number;

async function main(): Promise<void> {
  const wrk = findWrk();
  if (!wrk) throw new Error('wrk is needed: apt-get install wrk');
  const { database, url, cleanup } = await openBenchDatabase('calendar');
  await migrateToLatest(database);
  const community = await createCommunity({ database, clock: systemClock }, 'Bench calendar', 'free');
  const { key } = await createApiKey({ database, clock: systemClock }, community.id, 'bench');
  await runImport(database, systemClock, community.id, { calendar_events: Array.from({ length: eventCount }, (_, i) => eventRecord(i)) });
  await database.close();
  const port = await freePort();
  const server = await startServer(url, port);
  const base = `http://127.0.0.1:${port}`;
  const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  try {
    const created = await fetch(`${base}/admin/v0/calendar_feeds`, { method: 'POST', headers: auth, body: '{}' });
    const feedUrl = ((await created.json()) as { data: { url: string } }).data.url;
    const firstEver = await timedGet(feedUrl);
    const firstAgain = await timedGet(feedUrl);
    const afterChange: number[] = [];
    const cached: number[] = [];
    for (let round = 0; round < 9; round++) {
      const patched = await fetch(`${base}/admin/v0/calendar_events/cal${String(round * 7).padStart(9, '0')}`, {
        method: 'PATCH',
        headers: auth,
        body: JSON.stringify({ title: `Renamed meetup, round ${round}` }),
      });
      if (patched.status !== 200) throw new Error(`PATCH answered ${patched.status}`);
      afterChange.push((await timedGet(feedUrl)).ms);
      cached.push((await timedGet(feedUrl)).ms);
    }
    const etag = (await fetch(feedUrl)).headers.get('etag') as string;
    for (let i = 0; i < 50; i++) await timedGet(feedUrl); // warm-up of the cached path
    const full = wrkRate(wrk, feedUrl);
    const notModified = wrkRate(wrk, feedUrl, `If-None-Match: ${etag}`);
    const engine = parseDatabaseUrl(url).engine;
    process.stdout.write(
      [
        `engine: ${engine}; node ${process.version}; ${eventCount} events; server pinned to core 0, wrk (1 thread, 50 connections, 10 s) to core 1`,
        `feed bytes: ${firstAgain.bytes} (${(firstAgain.bytes / eventCount).toFixed(0)} per event)`,
        `first GET ever (render, ${eventCount} entries written, cold code): ${firstEver.ms.toFixed(1)} ms`,
        `first GET after a change (render + one entry written): median ${median(afterChange).toFixed(1)} ms of ${afterChange.length} (each: ${afterChange.map((ms) => ms.toFixed(1)).join(', ')}); target <= 50 ms`,
        `cached GET, same bytes, one at a time: median ${median(cached).toFixed(1)} ms`,
        `cached feed, 200 with the whole feed: ${full.rps.toFixed(0)} req/s; target >= 5,000`,
        `cached feed, 304 (If-None-Match): ${notModified.rps.toFixed(0)} req/s`,
        '',
        'wrk, full answers:',
        full.output,
      ].join('\n'),
    );
  } finally {
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
    await cleanup();
  }
}

await main();
