import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadRequest, LoadResult } from './load-client.js';
import { pinned } from './server.js';
import { projectRoot, runCollecting } from './util.js';
import { findWrk, runWrk, wrkVersion } from './wrk-client.js';

const client = fileURLToPath(new URL('./load-client.ts', import.meta.url));

/** wrk when installed; BENCH_LOAD_GENERATOR=autocannon forces the fallback (to compare the two). */
const wrk = process.env.BENCH_LOAD_GENERATOR === 'autocannon' ? null : findWrk();

function autocannonVersion(): string {
  try {
    const manifest = JSON.parse(readFileSync(join(projectRoot, 'node_modules/autocannon/package.json'), 'utf8')) as { version?: string };
    return manifest.version ?? '(unknown version)';
  } catch {
    return '(unknown version)';
  }
}

/** The generator the runs use, with its version, for the results ("wrk 4.1.0", "autocannon 8.0.0"). */
export function loadGeneratorName(): string {
  return wrk ? wrkVersion(wrk) : `autocannon ${autocannonVersion()}`;
}

/** Runs the load pinned to core 1 (the server has core 0); returns each measured run. */
export function runLoad(request: LoadRequest): Promise<LoadResult[]> {
  return wrk ? runWrk(wrk, request) : runAutocannon(request);
}

/** autocannon in a child process pinned to core 1. */
async function runAutocannon(request: LoadRequest): Promise<LoadResult[]> {
  const { code, stdout, stderr } = await runCollecting(pinned(1, [process.execPath, '--import', 'tsx', client, JSON.stringify(request)]));
  if (code !== 0) throw new Error(`load generator failed (${code}): ${stderr.trim()}`);
  try {
    return JSON.parse(stdout) as LoadResult[];
  } catch {
    throw new Error(`load generator printed no result: ${stdout.slice(0, 200)} ${stderr.slice(0, 500)}`);
  }
}
