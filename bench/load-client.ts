// Bench only: one autocannon run, in its own process so that the runner can pin it to the other
// core (`taskset -c 1 node --import tsx bench/load-client.ts '<json>'`). Prints one JSON result.
import { randomUUID } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import autocannon, { type AutocannonRequest } from 'autocannon';

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
  /**
   * Open loop: this many requests per second, evenly spaced, over at most `connections` keep-alive
   * connections (paced below, not by autocannon: its rate limit sends each second's quota in one
   * burst). Absent: closed loop, as fast as the server answers.
   */
  overallRate?: number;
  /** Replace `{uuid}` in the body and headers with a fresh UUID v4 per request (member add). */
  fresh?: boolean;
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  total: number;
  errors: number;
  timeouts: number;
  statuses: Record<string, number>;
}

function withFreshIds(request: AutocannonRequest): AutocannonRequest {
  const id = randomUUID();
  const headers = Object.fromEntries(Object.entries(request.headers ?? {}).map(([name, value]) => [name, value.replaceAll('{uuid}', id)]));
  return { ...request, headers, ...(request.body === undefined ? {} : { body: request.body.replaceAll('{uuid}', id) }) };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;

/**
 * Sends requests at fixed intervals whatever the answers do, and measures each latency from the
 * moment it was due (so that a request waiting for a free connection counts its wait).
 */
async function paced(spec: LoadRequest, rate: number, durationSeconds: number): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: spec.connections });
  const target = new URL(spec.path, spec.url);
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const pending = new Set<Promise<void>>();
  let errors = 0;
  const intervalMs = 1000 / rate;
  const started = performance.now();
  const fire = (due: number) => {
    const id = randomUUID();
    const fill = (text: string) => (spec.fresh ? text.replaceAll('{uuid}', id) : text);
    const headers = Object.fromEntries(Object.entries(spec.headers).map(([name, value]) => [name, fill(value)]));
    const done = new Promise<void>((resolve) => {
      const req = httpRequest(target, { method: spec.method, headers, agent }, (res) => {
        res.resume();
        res.once('end', () => {
          latencies.push(performance.now() - due);
          statuses[String(res.statusCode)] = (statuses[String(res.statusCode)] ?? 0) + 1;
          resolve();
        });
      });
      req.once('error', () => {
        errors++;
        resolve();
      });
      req.end(spec.body === undefined ? undefined : fill(spec.body));
    });
    pending.add(done);
    void done.then(() => pending.delete(done));
  };
  let sent = 0;
  while (performance.now() - started < durationSeconds * 1000) {
    const dueCount = Math.floor((performance.now() - started) / intervalMs) + 1;
    for (; sent < dueCount; sent++) fire(started + sent * intervalMs);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(pending);
  agent.destroy();
  const sorted = latencies.sort((a, b) => a - b);
  return {
    rps: latencies.length / durationSeconds,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    total: latencies.length,
    errors,
    timeouts: 0,
    statuses,
  };
}

async function once(spec: LoadRequest, durationSeconds: number): Promise<LoadResult> {
  if (spec.overallRate !== undefined) return paced(spec, spec.overallRate, durationSeconds);
  const request: AutocannonRequest = {
    method: spec.method,
    path: spec.path,
    headers: spec.headers,
    ...(spec.body === undefined ? {} : { body: spec.body }),
    ...(spec.fresh ? { setupRequest: withFreshIds } : {}),
  };
  const result = await autocannon({
    url: spec.url,
    connections: spec.connections,
    duration: durationSeconds,
    timeout: 10,
    requests: [request],
  });
  const statuses = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, stat]) => [code, stat.count]));
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    errors: result.errors,
    timeouts: result.timeouts,
    statuses,
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
