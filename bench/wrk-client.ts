// Bench only: the load generator when wrk is installed. wrk is C: one thread on core 1 keeps sending
// where autocannon (JS, same core) saturates first on large bodies, so the ceiling stays the server's.
import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { LoadRequest, LoadResult } from './load-client.js';
import { cpuPerRequest, readCpuTicks } from './proc-cpu.js';
import { pinned } from './server.js';
import { runCollecting } from './util.js';

/** What the script's done() prints (wrk's own latencies are microseconds; converted to ms in Lua). */
interface WrkSummary {
  requests: number;
  duration_us: number;
  errors: { connect: number; read: number; write: number; timeout: number; status: number };
  p50_ms: number;
  p99_ms: number;
}

/** /usr/bin/wrk, else the first wrk on PATH; null: fall back to autocannon. */
export function findWrk(): string | null {
  for (const dir of ['/usr/bin', ...(process.env.PATH ?? '').split(delimiter).filter(Boolean)]) {
    const path = join(dir, 'wrk');
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // Not in this directory.
    }
  }
  return null;
}

/** "wrk 4.1.0" (`wrk -v` prints e.g. "wrk debian/4.1.0-3+b2 [epoll] ..." and exits 1). */
export function wrkVersion(wrk: string): string {
  const out = spawnSync(wrk, ['-v'], { encoding: 'utf8' });
  const version = /(\d+\.\d+\.\d+)/.exec(`${out.stdout ?? ''}${out.stderr ?? ''}`)?.[1];
  return `wrk ${version ?? '(unknown version)'}`;
}

/** A Lua string literal: printable ASCII as is, any other byte as a 3-digit escape (so that a digit after it is not read as its 4th). */
function lua(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    out += byte >= 0x20 && byte < 0x7f && byte !== 0x22 && byte !== 0x5c ? String.fromCharCode(byte) : `\\${String(byte).padStart(3, '0')}`;
  }
  return `"${out}"`;
}

const doneFunction = `
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('\\n{"requests":%d,"duration_us":%d,"errors":{"connect":%d,"read":%d,"write":%d,"timeout":%d,"status":%d},"p50_ms":%.3f,"p99_ms":%.3f}\\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.timeout, e.status,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
`;

/**
 * Fresh ids come from Lua's PRNG, seeded from the runner's crypto per invocation (and per thread):
 * wrk seeds nothing itself, and two runs with one seed would send the same e-mails twice (409s).
 */
function freshRequest(spec: LoadRequest, seed: number): string {
  const headers = Object.entries(spec.headers)
    .map(([name, value]) => `[${lua(name)}] = ${lua(value)}`)
    .join(', ');
  return `
local nextSeed = ${seed}
function setup(thread)
  thread:set("seed", nextSeed)
  nextSeed = nextSeed + 1
end
function init(args)
  math.randomseed(seed)
end
local random = math.random
local function uuid()
  return string.format("%04x%04x-%04x-%04x-%04x-%04x%04x%04x", random(0, 0xffff), random(0, 0xffff), random(0, 0xffff),
    0x4000 + random(0, 0x0fff), 0x8000 + random(0, 0x3fff), random(0, 0xffff), random(0, 0xffff), random(0, 0xffff))
end
local template = { ${headers} }
local body = ${spec.body === undefined ? 'nil' : lua(spec.body)}
function request()
  local id = uuid()
  local headers = {}
  for name, value in pairs(template) do headers[name] = (value:gsub("{uuid}", id)) end
  return wrk.format(nil, nil, headers, body and (body:gsub("{uuid}", id)))
end
`;
}

/** The whole script: the request of the spec (static unless fresh) and a done() that prints one JSON line. */
export function wrkScript(spec: LoadRequest, seed: number): string {
  const lines = [`wrk.method = ${lua(spec.method)}`, `wrk.path = ${lua(spec.path)}`];
  if (spec.body !== undefined) lines.push(`wrk.body = ${lua(spec.body)}`);
  for (const [name, value] of Object.entries(spec.headers)) lines.push(`wrk.headers[${lua(name)}] = ${lua(value)}`);
  return `${lines.join('\n')}\n${spec.fresh ? freshRequest(spec, seed) : ''}${doneFunction}`;
}

function parseSummary(stdout: string): WrkSummary | null {
  const line = stdout.split('\n').find((l) => l.startsWith('{"requests":'));
  if (!line) return null;
  const parsed = JSON.parse(line) as WrkSummary;
  return Number.isFinite(parsed.requests) && Number.isFinite(parsed.duration_us) ? parsed : null;
}

/** One wrk process pinned to core 1 (one thread: one core), with a script of its own. */
async function wrkOnce(wrk: string, spec: LoadRequest, durationSeconds: number): Promise<WrkSummary> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-wrk-'));
  const script = join(dir, 'request.lua');
  writeFileSync(script, wrkScript(spec, randomInt(2 ** 47)));
  // autocannon's 10 s timeout, kept so that "timeouts" means the same with either generator.
  const args = [
    '-t1',
    `-c${spec.connections}`,
    `-d${durationSeconds}s`,
    '--latency',
    '--timeout',
    '10s',
    '-s',
    script,
    `${spec.url}${spec.path}`,
  ];
  const command = pinned(1, [wrk, ...args]);
  try {
    const { code, stdout, stderr } = await runCollecting(command);
    const summary = code === 0 ? parseSummary(stdout) : null;
    if (!summary) throw new Error(`wrk failed (${code}): ${stdout.slice(-500).trim()} ${stderr.slice(-500).trim()}`);
    return summary;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * wrk cannot tell status codes apart (only "> 399"): the classes are reported instead, and the
 * exact status is checked once per scenario before the runs (captureResponse).
 */
function toLoadResult(summary: WrkSummary, cpu: LoadResult['cpu']): LoadResult {
  const answered = summary.requests > 0;
  const { errors } = summary;
  return {
    rps: summary.duration_us > 0 ? summary.requests / (summary.duration_us / 1e6) : 0,
    p50: answered ? summary.p50_ms : Number.NaN,
    p99: answered ? summary.p99_ms : Number.NaN,
    total: summary.requests,
    errors: errors.connect + errors.read + errors.write,
    timeouts: errors.timeout,
    statuses: { '2xx/3xx': summary.requests - errors.status, '4xx/5xx': errors.status },
    cpu,
  };
}

/** A warm-up run (dropped), then the measured runs, the server's CPU read just before and after each. */
export async function runWrk(wrk: string, spec: LoadRequest): Promise<LoadResult[]> {
  if (spec.warmupSeconds > 0) await wrkOnce(wrk, spec, spec.warmupSeconds);
  const results: LoadResult[] = [];
  for (let i = 0; i < spec.runs; i++) {
    const before = readCpuTicks(spec.serverPid);
    const summary = await wrkOnce(wrk, spec, spec.durationSeconds);
    const after = readCpuTicks(spec.serverPid);
    results.push(toLoadResult(summary, cpuPerRequest(before, after, summary.requests)));
  }
  return results;
}
