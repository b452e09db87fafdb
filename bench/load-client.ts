// Bench only: one autocannon run, in its own process so that the runner can pin it to the other
// core (`taskset -c 1 node --import tsx bench/load-client.ts '<json>'`). Prints one JSON result.
// The fallback when wrk is not installed (see load.ts and wrk-client.ts).
import { randomUUID } from 'node:crypto';
import autocannon, { type AutocannonRequest } from 'autocannon';
import { type CpuPerRequest, cpuPerRequest, readCpuTicks } from './proc-cpu.js';

/** What the runner asks for (see load.ts). */
export interface LoadRequest {
  url: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  connections: number;
  /** A first run whose figures are dropped (JIT, caches, connection set-up). */
  warmupSeconds: number;
  runs: number;
  durationSeconds: number;
  /** Replace `{uuid}` in the body and headers with a fresh UUID v4 per request (member add). */
  fresh?: boolean;
  /** The server process under load: its CPU time is read just before and after each measured run. */
  serverPid?: number;
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  total: number;
  errors: number;
  timeouts: number;
  /** Exact codes (autocannon), or only the classes "2xx/3xx" and "4xx/5xx" (wrk). */
  statuses: Record<string, number>;
  /** The server's CPU per request during the run; null without procfs. */
  cpu: CpuPerRequest | null;
}

function withFreshIds(request: AutocannonRequest): AutocannonRequest {
  const id = randomUUID();
  const headers = Object.fromEntries(Object.entries(request.headers ?? {}).map(([name, value]) => [name, value.replaceAll('{uuid}', id)]));
  return { ...request, headers, ...(request.body === undefined ? {} : { body: request.body.replaceAll('{uuid}', id) }) };
}

async function once(spec: LoadRequest, durationSeconds: number): Promise<LoadResult> {
  const request: AutocannonRequest = {
    method: spec.method,
    path: spec.path,
    headers: spec.headers,
    ...(spec.body === undefined ? {} : { body: spec.body }),
    ...(spec.fresh ? { setupRequest: withFreshIds } : {}),
  };
  const before = readCpuTicks(spec.serverPid);
  const result = await autocannon({
    url: spec.url,
    connections: spec.connections,
    duration: durationSeconds,
    timeout: 10,
    requests: [request],
  });
  const after = readCpuTicks(spec.serverPid);
  const statuses = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, stat]) => [code, stat.count]));
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    errors: result.errors,
    timeouts: result.timeouts,
    statuses,
    cpu: cpuPerRequest(before, after, result.requests.total),
  };
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '{}') as LoadRequest;
  if (spec.warmupSeconds > 0) await once(spec, spec.warmupSeconds);
  const results: LoadResult[] = [];
  for (let i = 0; i < spec.runs; i++) results.push(await once(spec, spec.durationSeconds));
  process.stdout.write(`${JSON.stringify(results)}\n`);
}

await main();
