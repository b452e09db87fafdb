// Bytes allocated per request, by function: V8's sampling heap profiler (every allocation, also
// those collected since), in-process, while wrk loads the server for 6 s at 50 connections.
// Usage: node --import tsx bench/alloc-profile.ts sqlite|postgres [PATH]   (the 100k dataset; PATH
// defaults to the uncached event list page 3; BENCH_DATABASE_URL for PostgreSQL)
import { execFile } from 'node:child_process';
import { Session } from 'node:inspector/promises';
import { promisify } from 'node:util';
import { buildApp } from '../src/app.js';
import { openDatabase } from '../src/db/database.js';
import { createApiKey } from '../src/modules/api-keys/api-keys.commands.js';
import { systemClock } from '../src/shared/clock.js';
import { testConfig } from '../test/support/harness.js';
import { ensureDataset } from './datasets.js';
import { pinned } from './server.js';
import { Log } from './util.js';

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

const engine = process.argv[2] === 'postgres' ? 'postgres' : 'sqlite';
const path = process.argv[3] ?? '/admin/v0/calendar_events?page=3&per_page=20';
const postgresUrl = process.env.BENCH_DATABASE_URL ?? '';
const dataset = await ensureDataset(engine, '100k', postgresUrl, new Log());
const url = dataset.databaseUrl;
const database =
  engine === 'sqlite'
    ? openDatabase({ engine, path: url.replace(/^sqlite:/, '') })
    : openDatabase({ engine, url: postgresUrl }, { schema: 'bench_100k' });
const app = await buildApp({
  config: testConfig({ RESPONSE_CACHE_MB: '0', RATE_LIMIT_PER_SECOND: '1000000000' }),
  database,
  clock: systemClock,
  logger: false,
});
await app.listen({ port: 0, host: '127.0.0.1' });
const { port } = app.server.address() as { port: number };
const key = (await createApiKey({ database, clock: systemClock, communityId: dataset.target.communityId }, { label: 'alloc-profile' })).key;
const wrk = (seconds: number) => {
  const [program, ...args] = pinned(1, [
    'wrk',
    '-t1',
    '-c50',
    `-d${seconds}s`,
    '-H',
    `authorization: Bearer ${key}`,
    `http://127.0.0.1:${port}${path}`,
  ]);
  return promisify(execFile)(program as string, args).then((out) => out.stdout);
};
await wrk(2);
const session = new Session();
session.connect();
await session.post('HeapProfiler.startSampling', {
  samplingInterval: 4096,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});
const out = await wrk(6);
const { profile } = (await session.post('HeapProfiler.stopSampling')) as { profile: { head: ProfileNode } };
const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 1);
const byFunction = new Map<string, number>();
let total = 0;
const walk = (node: ProfileNode) => {
  const { functionName, url: file, lineNumber } = node.callFrame;
  const name = `${functionName || '(anonymous)'} ${file.replace(/.*node_modules\//, '').replace(/.*\/src\//, 'src/')}:${lineNumber}`;
  total += node.selfSize;
  byFunction.set(name, (byFunction.get(name) ?? 0) + node.selfSize);
  for (const child of node.children) walk(child);
};
walk(profile.head);
console.log(`${engine} ${path}: ${requests} requests, ${(total / requests / 1024).toFixed(0)} kB allocated per request`);
for (const [name, bytes] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
  console.log(`${(bytes / requests / 1024).toFixed(1).padStart(8)} kB  ${name}`);
}
await app.close();
