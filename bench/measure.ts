import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { captureResponse, totalRecordsOf } from './capture.js';
import type { CapturedResponse } from './ceiling-server.js';
import type { BenchDataset } from './datasets.js';
import { runLoad } from './load.js';
import type { LoadResult } from './load-client.js';
import { assertServerProcess } from './proc-cpu.js';
import type { RequestSpec, Scenario, ScenarioContext } from './scenarios.js';
import { type RunningServer, startCeiling, startFloor, startServer, type Variant } from './server.js';
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
  /** The server's CPU time per request (µs), user and system: steadier than req/s on a VM with steal. */
  cpuUserUs: number;
  cpuSysUs: number;
  runs: { rps: number; p50: number; p99: number; cpuUserUs: number; cpuSysUs: number }[];
  ceilingRps: number;
  ceilingRatio: number;
  /**
   * The ceiling server's latency under the same closed-loop runs: on this VM even it shows p99s of
   * 10-100 ms (hypervisor steal), so the server's p99 means something only next to it.
   */
  ceilingP50: number;
  ceilingP99: number;
  ceilingCpuUserUs: number;
  ceilingCpuSysUs: number;
  /** The framework floor (floor-server.ts), for scenarios that measure it: req/s and its ratio to the ceiling. */
  floorRps?: number;
  floorRatio?: number;
  peakRssMb: number;
  startupMs: number;
  bodyBytes: number;
  /** Answers with another status than the expected one (0 for a valid row). */
  unexpected: number;
  /** Requests without an answer within the 10 s timeout, or with a socket error (slow rows have some). */
  timeouts: number;
  error: string | null;
}

const cpuUs = (r: LoadResult, part: 'userUs' | 'sysUs') => r.cpu?.[part] ?? Number.NaN;
const medianOf = (results: LoadResult[], pick: (r: LoadResult) => number) => median(results.map(pick).filter(Number.isFinite));

const summarise = (results: LoadResult[]) => ({
  rps: Math.round(median(results.map((r) => r.rps))),
  p50: median(results.map((r) => r.p50)),
  p99: median(results.map((r) => r.p99)),
  cpuUserUs: medianOf(results, (r) => cpuUs(r, 'userUs')),
  cpuSysUs: medianOf(results, (r) => cpuUs(r, 'sysUs')),
});

/** wrk reports only status classes (see wrk-client.ts); autocannon the exact codes. */
const statusClass = (code: number) => (code < 400 ? '2xx/3xx' : '4xx/5xx');

function unexpectedAnswers(results: LoadResult[], status: Scenario['status']): number {
  const expected = Array.isArray(status) ? status : [status];
  const allowed = new Set([...expected.map(String), ...expected.map(statusClass)]);
  return results.reduce((n, r) => n + Object.entries(r.statuses).reduce((m, [code, count]) => m + (allowed.has(code) ? 0 : count), 0), 0);
}

async function load(
  server: RunningServer,
  request: RequestSpec,
  durations: Durations,
  extra: { runs?: number; warmupSeconds?: number } = {},
) {
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
    serverPid: server.pid,
  });
}

/** Environment of a variant server: the fixed total of no-count, the principal of no-guards. */
export function variantEnv(scenario: Scenario, dataset: BenchDataset, captures: Map<string, CapturedResponse>): Record<string, string> {
  if (scenario.variant === 'no-guards') {
    return { BENCH_PRINCIPAL: JSON.stringify({ keyId: 'bench-no-guards', communityId: dataset.target.communityId, plan: 'enterprise' }) };
  }
  if (scenario.variant === 'no-count') {
    const original = scenario.pairedWith ? captures.get(scenario.pairedWith) : undefined;
    if (!original) throw new Error(`${scenario.name} needs ${scenario.pairedWith} to be captured first on this dataset`);
    return { BENCH_FIXED_TOTAL: String(totalRecordsOf(original)) };
  }
  return {};
}

/** One scenario of a group: its server, the ceiling for its bytes, and the runs of both. */
interface Lane {
  scenario: Scenario;
  request: RequestSpec;
  server: RunningServer;
  ceiling: RunningServer;
  /** The framework floor, for scenarios that ask for it. */
  floor: RunningServer | null;
  captured: CapturedResponse;
  results: LoadResult[];
  ceilingResults: LoadResult[];
  floorResults: LoadResult[];
}

/** Starts a scenario's server, captures its answer, starts the ceiling server for those bytes. */
async function openLane(scenario: Scenario, context: ScenarioContext, captures: Map<string, CapturedResponse>): Promise<Lane> {
  const request = scenario.request(context);
  const server = await startServer({
    databaseUrl: context.dataset.databaseUrl,
    ...(scenario.variant ? { variant: scenario.variant } : {}),
    env: { ...variantEnv(scenario, context.dataset, captures), ...scenario.env },
  });
  try {
    const captured = await captureResponse(server.url, request);
    const expected = Array.isArray(scenario.status) ? scenario.status : [scenario.status];
    if (!expected.includes(captured.status)) {
      throw new Error(
        `expected ${expected.join('/')}, got ${captured.status}: ${Buffer.from(captured.bodyBase64, 'base64').toString('utf8').slice(0, 300)}`,
      );
    }
    captures.set(scenario.name, captured);
    const capturePath = join(dataDir, `capture-${scenario.name}.response`);
    writeFileSync(capturePath, JSON.stringify(captured));
    const ceiling = await startCeiling(capturePath);
    let floor: RunningServer | null = null;
    try {
      if (scenario.floor) floor = await startFloor(capturePath);
      assertServerProcess(server.pid);
      assertServerProcess(ceiling.pid);
      if (floor) assertServerProcess(floor.pid);
    } catch (error) {
      await ceiling.stop();
      await floor?.stop();
      throw error;
    }
    return { scenario, request, server, ceiling, floor, captured, results: [], ceilingResults: [], floorResults: [] };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

function toMeasurement(lane: Lane, context: ScenarioContext): Measurement {
  const measured = summarise(lane.results);
  const ceiling = summarise(lane.ceilingResults);
  const ratios = lane.results.map((r, i) => r.rps / (lane.ceilingResults[i]?.rps ?? Number.NaN));
  return {
    engine: context.dataset.engine,
    dataset: context.dataset.name,
    scenario: lane.scenario.name,
    title: lane.scenario.title,
    variant: lane.scenario.variant ?? null,
    ...measured,
    runs: lane.results.map((r) => ({
      rps: Math.round(r.rps),
      p50: r.p50,
      p99: r.p99,
      cpuUserUs: cpuUs(r, 'userUs'),
      cpuSysUs: cpuUs(r, 'sysUs'),
    })),
    ceilingRps: ceiling.rps,
    ceilingRatio: median(ratios),
    ceilingP50: ceiling.p50,
    ceilingP99: ceiling.p99,
    ceilingCpuUserUs: ceiling.cpuUserUs,
    ceilingCpuSysUs: ceiling.cpuSysUs,
    ...(lane.floor ? floorFigures(lane) : {}),
    peakRssMb: lane.server.peakRssMb(),
    startupMs: Math.round(lane.server.startupMs),
    bodyBytes: Buffer.from(lane.captured.bodyBase64, 'base64').length,
    unexpected: unexpectedAnswers(lane.results, lane.scenario.status),
    timeouts: lane.results.reduce((n, r) => n + r.errors + r.timeouts, 0),
    error: null,
  };
}

/** The floor's req/s and its ratio to the ceiling (medians of the per-run ratios, as for the server). */
function floorFigures(lane: Lane): Pick<Measurement, 'floorRps' | 'floorRatio'> {
  const ratios = lane.floorResults.map((r, i) => r.rps / (lane.ceilingResults[i]?.rps ?? Number.NaN));
  return { floorRps: summarise(lane.floorResults).rps, floorRatio: median(ratios) };
}

const failed = (scenario: Scenario, context: ScenarioContext, error: unknown): Measurement => ({
  engine: context.dataset.engine,
  dataset: context.dataset.name,
  scenario: scenario.name,
  title: scenario.title,
  variant: scenario.variant ?? null,
  rps: 0,
  p50: Number.NaN,
  p99: Number.NaN,
  cpuUserUs: Number.NaN,
  cpuSysUs: Number.NaN,
  runs: [],
  ceilingRps: 0,
  ceilingRatio: Number.NaN,
  ceilingP50: Number.NaN,
  ceilingP99: Number.NaN,
  ceilingCpuUserUs: Number.NaN,
  ceilingCpuSysUs: Number.NaN,
  peakRssMb: Number.NaN,
  startupMs: Number.NaN,
  bodyBytes: 0,
  unexpected: 0,
  timeouts: 0,
  error: error instanceof Error ? error.message : String(error),
});

/**
 * Measures a group of scenarios that are compared with each other (a scenario and its bench
 * variants). Every scenario has its own server process on core 0 (so its peak RSS is its own) and
 * its own ceiling server (a bare node:http answering its captured bytes, also on core 0); the idle
 * ones use no CPU. After a warm-up of each, the runs alternate: scenario A, ceiling A, scenario B,
 * ceiling B, then again, so that a change of the machine's background load hits all of them alike.
 * The load generator (wrk, else autocannon) runs on core 1.
 */
export async function measureGroup(
  group: readonly Scenario[],
  context: ScenarioContext,
  durations: Durations,
  captures: Map<string, CapturedResponse>,
): Promise<Measurement[]> {
  const lanes: Lane[] = [];
  const out = new Map<string, Measurement>();
  try {
    for (const scenario of group) {
      try {
        lanes.push(await openLane(scenario, context, captures));
      } catch (error) {
        out.set(scenario.name, failed(scenario, context, error));
      }
    }
    for (let run = 0; run < durations.runs; run++) {
      // The first run of each server starts with its warm-up, in the same load process.
      const warmupSeconds = run === 0 ? durations.warmupSeconds : 0;
      for (const lane of lanes) {
        lane.results.push(...(await load(lane.server, lane.request, durations, { runs: 1, warmupSeconds })));
        lane.ceilingResults.push(...(await load(lane.ceiling, lane.request, durations, { runs: 1, warmupSeconds })));
        if (lane.floor) lane.floorResults.push(...(await load(lane.floor, lane.request, durations, { runs: 1, warmupSeconds })));
      }
    }
    for (const lane of lanes) out.set(lane.scenario.name, toMeasurement(lane, context));
  } catch (error) {
    for (const scenario of group) if (!out.has(scenario.name)) out.set(scenario.name, failed(scenario, context, error));
  } finally {
    for (const lane of lanes) {
      await lane.server.stop();
      await lane.ceiling.stop();
      await lane.floor?.stop();
    }
  }
  return group.map((scenario) => out.get(scenario.name) ?? failed(scenario, context, new Error('not measured')));
}
