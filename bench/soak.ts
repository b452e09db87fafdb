// Soak: a real server held at the per-key rate limit by many keys for minutes. Every held key sends
// 90% of its budget in each (epoch-aligned) window, spread over the window, one request at a time:
// the spare slot absorbs the one request that may be counted in the next window because it
// queued, so any non-2xx is an error. One more key sends 20% over its budget and must be refused, never served past the limit.
// The budget defaults to 10/s (--limit): what is soaked is the limiter and the server's memory
// across many keys held at their limit, not the throughput of a shared 2-core CI machine. The server's RSS is sampled every second
// and must stay flat. `npm run soak` (3 min, 25 keys) · `--quick` (10 s, 8 keys: CI; reports skipped requests without
// failing on them unless `--judge-speed`) · `--json`.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSeed } from '../src/cli/seed/run-seed.js';
import { migrateToLatest, openDatabase } from '../src/db/database.js';
import { createApiKey } from '../src/modules/api-keys/api-keys.commands.js';
import { createCommunity } from '../src/modules/communities/communities.commands.js';
import { systemClock } from '../src/shared/clock.js';
import { freePort } from './server.js';
import { binPath, median, projectRoot, sleep } from './util.js';

interface Options {
  durationSeconds: number;
  keys: number;
  limit: number;
  json: boolean;
  judgeSpeed: boolean;
}

/** Share of the budget the held keys use: what a well-behaved client at the limit sends. */
const heldShare = 0.9;
const overShare = 1.2;

function parseOptions(argv: string[]): Options {
  const quick = argv.includes('--quick');
  const value = (name: string, fallback: number) => {
    const index = argv.indexOf(name);
    return index >= 0 ? Number(argv[index + 1]) : fallback;
  };
  return {
    durationSeconds: value('--duration', quick ? 10 : 180),
    keys: value('--keys', quick ? 8 : 25),
    limit: value('--limit', 10),
    json: argv.includes('--json'),
    // Whether too slow a server fails the run: timing is judged by the soak as a benchmark, not by
    // `npm test` (the quick run shares its machine with the whole suite, where a stall of the
    // machine, not of the server, would fail it); `--judge-speed` asks for it in a quick run too.
    judgeSpeed: !quick || argv.includes('--judge-speed'),
  };
}

const log = (text: string) => process.stderr.write(`[soak] ${text}\n`);

/** Resident set of a process in MB (Linux /proc), or NaN elsewhere. */
function rssMb(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Least-squares slope of (seconds, MB) samples, in MB per minute. */
function slopePerMinute(samples: { at: number; mb: number }[]): number {
  const n = samples.length;
  if (n < 2) return 0;
  const meanX = samples.reduce((s, p) => s + p.at, 0) / n;
  const meanY = samples.reduce((s, p) => s + p.mb, 0) / n;
  const num = samples.reduce((s, p) => s + (p.at - meanX) * (p.mb - meanY), 0);
  const den = samples.reduce((s, p) => s + (p.at - meanX) ** 2, 0);
  return den === 0 ? 0 : (num / den) * 60;
}

/** A community with `keys` keys spread over a few communities, and a small realistic data set. */
async function prepare(databaseUrl: string, keys: number): Promise<string[]> {
  const database = openDatabase({ engine: 'sqlite', path: databaseUrl.slice('sqlite:'.length) });
  await migrateToLatest(database);
  const secrets: string[] = [];
  for (let c = 0; c * 5 < keys; c++) {
    const community = await createCommunity({ database, clock: systemClock }, { name: `Soak ${c}`, plan: 'enterprise' });
    const counts = { profiles: 100, members: 100, groups: 2, feeds: 3, posts: 200, events: 200 };
    await runSeed(database, systemClock, { communityId: community.id, seed: `soak-${c}`, anchor: Date.now(), counts });
    for (let k = 0; k < 5 && secrets.length < keys; k++)
      secrets.push((await createApiKey({ database, clock: systemClock, communityId: community.id }, {})).key);
  }
  await database.close();
  return secrets;
}

interface Tally {
  ok: number;
  refused: number;
  errors: Record<string, number>;
  /** Milliseconds per answered request. */
  latencies: number[];
  /** Requests a held key did not send because the server answered too slowly to fit them in their window. */
  skipped: number;
}

const newTally = (): Tally => ({ ok: 0, refused: 0, errors: {}, latencies: [], skipped: 0 });
const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))] ?? Number.NaN;

/** What one key asks for, in turn: reads of every kind and the membership check. */
type PlannedRequest = RequestInit & { path: string };

async function requestsFor(baseUrl: string, authorization: string): Promise<PlannedRequest[]> {
  const res = await fetch(`${baseUrl}/admin/v0/calendar_events?time_filter=all&per_page=5`, { headers: { authorization } });
  const events = ((await res.json()) as { data: { records: { id: string }[] } }).data.records;
  const feeds = await fetch(`${baseUrl}/admin/v0/feeds/home/posts?per_page=5`, { headers: { authorization } });
  const posts = ((await feeds.json()) as { data: { records: { feed_id: string }[] } }).data.records;
  const json = { authorization, 'content-type': 'application/json' };
  return [
    { path: '/admin/v0/calendar_events?per_page=10', headers: { authorization } },
    { path: `/admin/v0/calendar_events/${events[0]?.id}`, headers: { authorization } },
    { path: `/admin/v0/feeds/${posts[0]?.feed_id}`, headers: { authorization } },
    { path: '/admin/v0/feeds/home/posts?sort=most-recent-activity', headers: { authorization } },
    { path: '/admin/v0/members/check', method: 'POST', headers: json, body: JSON.stringify({ email: 'nobody@soak.example.org' }) },
  ];
}

/** Sends `perWindow` requests in every window in [from, to), spread over 90% of the window. */
/** Sends one request and counts its answer. */
async function sendOne(baseUrl: string, request: PlannedRequest, tally: Tally): Promise<void> {
  const { path, ...init } = request;
  const started = performance.now();
  try {
    const res = await fetch(`${baseUrl}${path}`, init);
    await res.arrayBuffer();
    tally.latencies.push(performance.now() - started);
    if (res.status < 300) tally.ok++;
    else if (res.status === 429) tally.refused++;
    else tally.errors[res.status] = (tally.errors[res.status] ?? 0) + 1;
  } catch (error) {
    const cause = error instanceof Error ? (error.cause as { code?: string } | undefined) : undefined;
    const name = cause?.code ?? (error instanceof Error ? error.message : 'network');
    tally.errors[name] = (tally.errors[name] ?? 0) + 1;
  }
}

/**
 * Sends `perWindow` requests in every window in [from, to), spread over 90% of the window. A held
 * key (`sequential`) waits for each answer before the next request, as a client that reads
 * RateLimit-Remaining does: at most one request can then cross into the next window, which the
 * held share's spare slot absorbs; when the server is too slow to fit the window's requests, the
 * rest of the window is skipped and counted. The over-limit key fires on schedule regardless.
 */
async function holdKey(
  baseUrl: string,
  requests: PlannedRequest[],
  perWindow: number,
  windowMs: number,
  span: [number, number],
  tally: Tally,
  sequential: boolean,
) {
  const inFlight = new Set<Promise<void>>();
  let n = 0;
  for (let window = span[0]; window < span[1]; window += windowMs) {
    for (let i = 0; i < perWindow; i++) {
      const wait = window + Math.floor((i * windowMs * 0.9) / perWindow) - Date.now();
      if (wait > 0) await sleep(wait);
      const request = requests[n++ % requests.length] as PlannedRequest;
      if (!sequential) {
        const sent: Promise<void> = sendOne(baseUrl, request, tally).finally(() => inFlight.delete(sent));
        inFlight.add(sent);
      } else if (Date.now() >= window + windowMs * 0.95) {
        tally.skipped += perWindow - i;
        break;
      } else {
        await sendOne(baseUrl, request, tally);
      }
    }
  }
  await Promise.all(inFlight);
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (!existsSync(join(projectRoot, 'dist/cli/index.js'))) throw new Error('dist/ is missing: run npm run build first');
  const dir = mkdtempSync(join(tmpdir(), 'community-admin-soak-'));
  const databaseUrl = `sqlite:${join(dir, 'soak.db')}`;
  log(`preparing ${options.keys + 1} keys and their data`);
  const [overKey, ...heldKeys] = await prepare(databaseUrl, options.keys + 1);
  const port = await freePort();
  const child = spawn(process.execPath, [binPath, 'serve'], {
    cwd: projectRoot,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_SECOND: String(options.limit),
      RATE_LIMIT_WINDOW_SECONDS: '1',
      // All keys come from this one address, and a key seen for the first time costs its address one unauthenticated request.
      RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '1000',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    for (let tries = 0; ; tries++) {
      if ((await fetch(`${baseUrl}/healthz`).catch(() => null))?.ok) break;
      if (tries > 200 || child.exitCode !== null) throw new Error('the server did not start');
      await sleep(50);
    }
    const plans = await Promise.all([...heldKeys, overKey].map((key) => requestsFor(baseUrl, `Bearer ${key}`)));
    const windowMs = 1000;
    // Starts on a window boundary two windows ahead: the set-up requests above must not share a window with the load.
    const from = (Math.floor(Date.now() / windowMs) + 2) * windowMs;
    const to = from + options.durationSeconds * windowMs;
    const held = newTally();
    const over = newTally();
    const heldPerWindow = Math.floor(options.limit * heldShare);
    const overPerWindow = Math.ceil(options.limit * overShare);
    const samples: { at: number; mb: number }[] = [];
    const sampler = setInterval(() => samples.push({ at: (Date.now() - from) / 1000, mb: rssMb(child.pid as number) }), 1000);
    log(
      `holding ${heldKeys.length} keys at ${heldPerWindow}/s of ${options.limit}/s (+1 key at ${overPerWindow}/s) for ${options.durationSeconds} s`,
    );
    await Promise.all([
      ...plans.slice(0, -1).map((plan) => holdKey(baseUrl, plan, heldPerWindow, windowMs, [from, to], held, true)),
      holdKey(baseUrl, plans.at(-1) ?? [], overPerWindow, windowMs, [from, to], over, false),
    ]);
    clearInterval(sampler);

    // Memory: the first fifth (at least 2 s) is warm-up; then compare the first and last quarters.
    const steady = samples.filter((s) => s.at >= Math.max(2, options.durationSeconds / 5) && Number.isFinite(s.mb));
    const quarter = Math.max(1, Math.floor(steady.length / 4));
    const baselineMb = median(steady.slice(0, quarter).map((s) => s.mb));
    const finalMb = median(steady.slice(-quarter).map((s) => s.mb));
    const growthMb = finalMb - baselineMb;
    const allowedGrowthMb = Math.max(24, baselineMb * 0.15);
    const windows = options.durationSeconds;
    const reasons: string[] = [];
    const heldErrors = held.refused + Object.values(held.errors).reduce((s, n) => s + n, 0);
    if (heldErrors > 0) reasons.push(`held keys: ${held.refused} refused, errors ${JSON.stringify(held.errors)}`);
    const expectedHeld = heldKeys.length * heldPerWindow * windows;
    if (held.ok + held.skipped !== expectedHeld)
      reasons.push(`held keys: ${held.ok} answered and ${held.skipped} skipped of ${expectedHeld}`);
    // A server too slow to fit 2% of the requests in their window is not holding the load.
    if (options.judgeSpeed && held.skipped > expectedHeld * 0.02)
      reasons.push(`held keys: ${held.skipped} requests skipped: the server answered too slowly`);
    // The limiter must refuse the excess and never serve more than the budget (one window of slack for queued requests).
    if (over.refused === 0 || over.ok > options.limit * (windows + 1) || Object.keys(over.errors).length > 0) {
      reasons.push(`over-limit key: ${over.ok} served, ${over.refused} refused, errors ${JSON.stringify(over.errors)}`);
    }
    if (Number.isFinite(growthMb) && growthMb > allowedGrowthMb)
      reasons.push(`RSS grew ${growthMb.toFixed(1)} MB (allowed ${allowedGrowthMb.toFixed(1)} MB)`);
    const result = {
      passed: reasons.length === 0,
      reasons,
      durationSeconds: options.durationSeconds,
      keys: heldKeys.length,
      limitPerSecond: options.limit,
      requests: held.ok + held.refused + over.ok + over.refused,
      held: { ok: held.ok, refused: held.refused, skipped: held.skipped, errors: held.errors },
      overLimit: { ok: over.ok, refused: over.refused, errors: over.errors },
      latencyMs: { p50: Number(percentile(held.latencies, 0.5).toFixed(1)), p99: Number(percentile(held.latencies, 0.99).toFixed(1)) },
      memory: {
        baselineMb: Number(baselineMb.toFixed(1)),
        finalMb: Number(finalMb.toFixed(1)),
        growthMb: Number(growthMb.toFixed(1)),
        slopeMbPerMinute: Number(slopePerMinute(steady).toFixed(2)),
        samples: samples.length,
      },
    };
    if (options.json) process.stdout.write(`${JSON.stringify(result)}\n`);
    else log(JSON.stringify(result, null, 2));
    process.exitCode = result.passed ? 0 : 1;
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
