import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { captureResponse, totalRecordsOf } from './capture.js';
import type { CapturedResponse } from './ceiling-server.js';
import type { BenchDataset } from './datasets.js';
import type { LoadResult } from './load-client.js';
import { runLoad } from './load.js';
import type { RequestSpec, Scenario, ScenarioContext } from './scenarios.js';
import { type RunningServer, startCeiling, startServer, type Variant } from './server.js';
import { dataDir, median } from './util.js';

/** How long and how often: the full method, or --quick. */
export interface Durations {
  warmupSeconds: number;
  durationSeconds: number;
  runs: number;
  connections: number;
}

/** One scenario on one dataset: medians of the runs, the ceiling for the same bytes, peak RSS. */
export interface Measurement {
  engine: string;
  dataset: string;
  scenario: string;
  title: string;
  variant: Variant | null;
  rps: number;
  p50: number;
  p99: number;
  runs: { rps: number; p50: number; p99: number }[];
  ceilingRps: number;
  ceilingRatio: number;
  /** Latency at half the measured throughput (open loop), when the scenario asks for it. */
  halfLoad: { rate: number; p50: number; p99: number } | null;
  peakRssMb: number;
  startupMs: number;
  bodyBytes: number;
  /** Answers whose status was not the expected one (must be 0 for a valid row). */
  unexpected: number;
  error: string | null;
}

const summarise = (results: LoadResult[]) => ({
  rps: Math.round(median(results.map((r) => r.rps))),
  p50: median(results.map((r) => r.p50)),
  p99: median(results.map((r) => r.p99)),
});

function unexpectedAnswers(results: LoadResult[], status: Scenario['status']): number {
  const allowed = new Set((Array.isArray(status) ? status : [status]).map(String));
  return results.reduce((n, r) => n + r.errors + r.timeouts + Object.entries(r.statuses).reduce((m, [code, count]) => m + (allowed.has(code) ? 0 : count), 0), 0);
}

async function load(server: RunningServer, request: RequestSpec, durations: Durations, extra: { overallRate?: number; runs?: number; warmupSeconds?: number } = {}) {
  return runLoad({
    url: server.url,
    method: request.method,
    path: request.path,
    headers: request.headers,
    ...(request.body === undefined ? {} : { body: request.body }),
    fresh: Boolean(request.fresh),
    connections: durations.connections,
    warmupSeconds: extra.warmupSeconds ?? durations.warmupSeconds,
    runs: extra.runs ?? durations.runs,
    durationSeconds: durations.durationSeconds,
    ...(extra.overallRate === undefined ? {} : { overallRate: extra.overallRate }),
  });
}

/** Environment of a variant server: the fixed total of no-count, the principal of no-guards. */
export function variantEnv(scenario: Scenario, dataset: BenchDataset, captures: Map<string, CapturedResponse>): Record<string, string> {
  if (scenario.variant === 'no-guards') {
    return { BENCH_PRINCIPAL: JSON.stringify({ keyId: 'bench-no-guards', communityId: dataset.target.communityId, plan: 'enterprise' }) };
  }
  if (scenario.variant === 'no-count') {
    const original = scenario.totalFrom ? captures.get(scenario.totalFrom) : undefined;
    if (!original) throw new Error(`${scenario.name} needs ${scenario.totalFrom} to run first on this dataset`);
    return { BENCH_FIXED_TOTAL: String(totalRecordsOf(original)) };
  }
  return {};
}

/**
 * Measures one scenario: the real server on core 0 (a fresh process, so that its peak RSS is the
 * scenario's), autocannon on core 1, warm-up then the runs; then the ceiling server answering the
 * captured bytes, measured the same way.
 */
export async function measureScenario(
  scenario: Scenario,
  context: ScenarioContext,
  durations: Durations,
  captures: Map<string, CapturedResponse>,
): Promise<Measurement> {
  const request = scenario.request(context);
  const base = { engine: context.dataset.engine, dataset: context.dataset.name, scenario: scenario.name, title: scenario.title, variant: scenario.variant ?? null };
  const server = await startServer({
    databaseUrl: context.dataset.databaseUrl,
    ...(scenario.variant ? { variant: scenario.variant } : {}),
    env: variantEnv(scenario, context.dataset, captures),
  });
  let captured: CapturedResponse;
  let results: LoadResult[];
  let halfLoad: Measurement['halfLoad'] = null;
  let peakRssMb: number;
  try {
    captured = await captureResponse(server.url, request);
    captures.set(scenario.name, captured);
    const expected = Array.isArray(scenario.status) ? scenario.status : [scenario.status];
    if (!expected.includes(captured.status)) {
      const body = Buffer.from(captured.bodyBase64, 'base64').toString('utf8').slice(0, 300);
      throw new Error(`expected ${expected.join('/')}, got ${captured.status}: ${body}`);
    }
    results = await load(server, request, durations);
    if (scenario.latencyProbe) {
      const rate = Math.max(1, Math.round(summarise(results).rps / 2));
      const [probe] = await load(server, request, durations, { overallRate: rate, runs: 1, warmupSeconds: 0 });
      if (probe) halfLoad = { rate, p50: probe.p50, p99: probe.p99 };
    }
    peakRssMb = server.peakRssMb();
  } finally {
    await server.stop();
  }
  const capturePath = join(dataDir, `capture-${scenario.name}.json`);
  writeFileSync(capturePath, JSON.stringify(captured));
  const ceiling = await startCeiling(capturePath);
  let ceilingResults: LoadResult[];
  try {
    ceilingResults = await load(ceiling, request, durations);
  } finally {
    await ceiling.stop();
  }
  const measured = summarise(results);
  const ceilingRps = summarise(ceilingResults).rps;
  return {
    ...base,
    ...measured,
    runs: results.map((r) => ({ rps: Math.round(r.rps), p50: r.p50, p99: r.p99 })),
    ceilingRps,
    ceilingRatio: ceilingRps > 0 ? measured.rps / ceilingRps : Number.NaN,
    halfLoad,
    peakRssMb,
    startupMs: Math.round(server.startupMs),
    bodyBytes: Buffer.from(captured.bodyBase64, 'base64').length,
    unexpected: unexpectedAnswers(results, scenario.status),
    error: null,
  };
}
