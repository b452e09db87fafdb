import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serverNodeOptions } from '../src/cli/server-node-options.js';
import { parseDatabaseUrl } from '../src/config.js';
import { binPath, dataDir, sleep } from './util.js';

/** taskset when the machine has it (Linux); without it the figures are unpinned, and say so. */
export const hasTaskset = existsSync('/usr/bin/taskset') || existsSync('/bin/taskset');
const variantHooks = fileURLToPath(new URL('./hooks/register-variant.mjs', import.meta.url));
const ceilingScript = fileURLToPath(new URL('./ceiling-server.ts', import.meta.url));
const floorScript = fileURLToPath(new URL('./floor-server.ts', import.meta.url));
const loopHookPath = fileURLToPath(new URL('./hooks/loop-delay.mjs', import.meta.url));

export type Variant = 'no-count' | 'no-guards';

/** A command line pinned to one core. */
export function pinned(core: number, command: string[]): string[] {
  return hasTaskset ? ['taskset', '-c', String(core), ...command] : command;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** A process serving HTTP on a port of 127.0.0.1, started for one measurement. */
export interface RunningServer {
  url: string;
  pid: number;
  /** Milliseconds from spawn to the first 200 on the readiness path. */
  startupMs: number;
  /** Peak resident set so far (VmHWM), in MB. */
  peakRssMb(): number;
  stop(): Promise<void>;
}

function peakRssOf(pid: number): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round(Number(match[1]) / 102.4) / 10 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

async function startPinned(
  command: string[],
  env: NodeJS.ProcessEnv,
  readyPath: string,
  port: number,
  anyStatus = false,
): Promise<RunningServer> {
  const [program, ...args] = command;
  const started = performance.now();
  // The working directory must exist: spawn reports a missing one as the program missing (ENOENT).
  mkdirSync(dataDir, { recursive: true });
  const child: ChildProcess = spawn(program as string, args, { cwd: dataDir, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited at start (${child.exitCode}): ${stderr.trim()}`);
    try {
      const response = await fetch(`${url}${readyPath}`);
      await response.arrayBuffer();
      if (response.status === 200 || anyStatus) break;
    } catch {
      // Not listening yet.
    }
    if (performance.now() - started > 60_000) throw new Error(`server not ready after 60 s: ${stderr.trim()}`);
    await sleep(5);
  }
  const startupMs = performance.now() - started;
  const pid = child.pid as number;
  return {
    url,
    pid,
    startupMs,
    peakRssMb: () => peakRssOf(pid),
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

export interface ServerOptions {
  databaseUrl: string;
  variant?: Variant;
  /** Extra environment (BENCH_FIXED_TOTAL, BENCH_PRINCIPAL). */
  env?: Record<string, string>;
  /** Extra node options before the script (e.g. `--import` of bench/hooks/loop-delay.mjs). */
  nodeArgs?: string[];
}

/**
 * The real server (`node bin/community-admin.js serve`, the built dist) pinned to core 0, with
 * warn-level logs and rate limits far above what the load generator can send. The node options the
 * server would relaunch itself with (PostgreSQL) are given at once: the measured process is the server.
 */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const port = await freePort();
  const node = [
    process.execPath,
    ...serverNodeOptions(parseDatabaseUrl(options.databaseUrl)),
    ...(options.variant ? ['--import', variantHooks] : []),
    ...(options.nodeArgs ?? []),
    // Any bench's servers with the loop instrument (docs/performance.md, "Tail"): a file per server in that directory.
    ...(process.env.BENCH_SERVER_LOOP_DIR ? ['--import', loopHookPath] : []),
    binPath,
    'serve',
  ];
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_URL: options.databaseUrl,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_SECOND: '1000000000',
    RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '1000000000',
    // Out of the way like the request budget (bench/fairness.ts measures the cost budget itself).
    RATE_LIMIT_COST_PER_SECOND: '1000000000',
    ...(options.variant ? { BENCH_VARIANT: options.variant } : {}),
    ...(process.env.BENCH_SERVER_LOOP_DIR ? { BENCH_LOOP_FILE: join(process.env.BENCH_SERVER_LOOP_DIR, `loop-${port}.jsonl`) } : {}),
    ...options.env,
  };
  return startPinned(pinned(0, node), env, '/healthz', port);
}

/** The ceiling: a bare node:http server on core 0 answering the captured response (see ceiling-server.ts). */
export async function startCeiling(capturePath: string): Promise<RunningServer> {
  const port = await freePort();
  const env = { PATH: process.env.PATH, CEILING_PORT: String(port), CEILING_CAPTURE: capturePath };
  return startPinned(pinned(0, [process.execPath, '--import', 'tsx', ceilingScript]), env, '/', port, true);
}

/** The framework floor for a captured response (see floor-server.ts), pinned like the real server. */
export async function startFloor(capturePath: string): Promise<RunningServer> {
  const port = await freePort();
  const env = { PATH: process.env.PATH, FLOOR_PORT: String(port), FLOOR_CAPTURE: capturePath };
  return startPinned(pinned(0, [process.execPath, '--import', 'tsx', floorScript]), env, '/', port, true);
}
