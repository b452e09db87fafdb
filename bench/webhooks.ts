// Webhook figures (docs/webhooks.md), a short standalone run:
//   1. the outbox's cost on an attendee update (PATCH /calendar_events/{id}/attendees changing a join
//      link, which emits calendar_event.registration.updated): the real server with the outbox
//      switched off (BENCH_VARIANT=no-outbox, bench/hooks) against the real server with no endpoint
//      (the endpoints read only) and with an endpoint that wants the type (render + delivery rows,
//      the worker sending to a local receiver); runs alternate so background load hits all alike;
//      and, fifth, the floor of that design: the row written with nothing rendered (BENCH_VARIANT=outbox-floor);
//   2. deliveries per second from one worker to a local receiver.
// Usage: npm run build && node --import tsx bench/webhooks.ts [seconds per run, default 3] [rounds, default 2]
// BENCH_CASES=1,2 runs only those of the five attendee-update cases; BENCH_NO_DELIVERIES=1 skips part 2.
// SQLite in a temp directory by default; BENCH_DATABASE_URL=postgres://... for PostgreSQL (own schema).
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon, { type AutocannonRequest } from 'autocannon';
import { serverNodeOptions } from '../src/cli/server-node-options.js';
import { parseDatabaseUrl } from '../src/config.js';
import { migrateToLatest } from '../src/db/database.js';
import { runImport } from '../src/import/run-import.js';
import { createApiKey } from '../src/modules/api-keys/api-keys.commands.js';
import { createCommunity } from '../src/modules/communities/communities.commands.js';
import { createWebhookEndpoint, removeWebhookEndpoint } from '../src/modules/webhooks/commands/endpoints.js';
import { DeliveryWorker } from '../src/modules/webhooks/worker/deliveries.js';
import { systemClock } from '../src/shared/clock.js';
import { durationMs } from '../src/shared/time.js';
import { writeCommunityData } from '../src/write-path/write-community-data.js';
import { openBenchDatabase } from './bench-database.js';
import { cpuPerRequest, readCpuTicks } from './proc-cpu.js';
import { hasTaskset } from './server.js';

const seconds = Number(process.argv[2] ?? 3);
const rounds = Number(process.argv[3] ?? 2);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const root = fileURLToPath(new URL('../', import.meta.url));
const bin = join(root, 'bin/community-admin.js');
const hooks = join(root, 'bench/hooks/register-variant.mjs');

function startReceiver(): Promise<{ server: Server; url: string; count: () => number }> {
  let received = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received++;
      response.writeHead(204).end();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({ server, url: `http://127.0.0.1:${port}/hook`, count: () => received });
    }),
  );
}

async function startServer(
  env: Record<string, string> & { DATABASE_URL: string },
  variant: string | null,
): Promise<{ child: ChildProcess; base: string }> {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const profile = process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_PROFILE_DIR] : [];
  const nodeOptions = serverNodeOptions(parseDatabaseUrl(env.DATABASE_URL));
  const args = [...nodeOptions, ...profile, ...(variant ? ['--import', hooks, bin, 'serve'] : [bin, 'serve'])];
  // Pinned to core 0 where taskset exists, so that the load generator (this process) keeps core 1.
  const child = spawn(hasTaskset ? 'taskset' : process.execPath, hasTaskset ? ['-c', '0', process.execPath, ...args] : args, {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'error',
      RATE_LIMIT_PER_SECOND: '1000000',
      ...env,
      ...(variant ? { BENCH_VARIANT: variant } : {}),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) return { child, base };
    } catch {
      // not yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error('server did not start');
}

async function stopServer(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

async function main(): Promise<void> {
  const { database, url, cleanup } = await openBenchDatabase('webhooks');
  await migrateToLatest(database);
  const community = await createCommunity({ database, clock: systemClock }, { name: 'Bench webhooks', plan: 'enterprise' });
  const key = await createApiKey({ database, clock: systemClock, communityId: community.id }, { label: 'bench' });
  await runImport(
    { database, clock: systemClock, communityId: community.id },
    {
      profiles: [{ profile_id: '00000000-0000-4000-8000-000000000001', email: 'a@bench.example.com', chat_user_id: 'UBENCH0001' }],
      calendar_events: [
        {
          id: 'benchEvent01',
          title: 'Bench event',
          status: 'published',
          start_date: '2027-01-01T10:00:00Z',
          end_date: '2027-01-01T11:00:00Z',
          triggers_webhooks: true,
          webhook_custom_metadata: 'bench',
          attendees: [{ profile_id: '00000000-0000-4000-8000-000000000001' }],
        },
      ],
    },
  );
  const receiver = await startReceiver();
  const env = { DATABASE_URL: url, WEBHOOK_ALLOW_PRIVATE: 'true' };
  // A new link on every request: the same link again is no change, and sends nothing.
  let linkNumber = 0;
  const request = {
    method: 'PATCH',
    headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
    requests: [
      {
        setupRequest: (req: AutocannonRequest) => ({
          ...req,
          body: JSON.stringify({ user: { chat_user_id: 'UBENCH0001' }, personal_join_link: `https://meet.example.org/j/${++linkNumber}` }),
        }),
      },
    ],
  };

  // With an endpoint, the outbox alone (rendering the event and writing its delivery row in the
  // transaction: the worker not started) and the whole feature (the worker sending each delivery
  // from the same process, on the same core).
  const allCases = [
    'no outbox (variant)',
    'outbox, no endpoint',
    'outbox, endpoint wants the type, not sending',
    'outbox, endpoint wants the type, sending',
    'outbox, endpoint wants the type, nothing rendered (floor)',
  ] as const;
  // BENCH_CASES=1,2: only those cases (numbered as above; the first is the baseline of the others).
  const picked = process.env.BENCH_CASES?.split(',').map((n) => Number(n) - 1);
  const cases = picked ? allCases.filter((_, i) => picked.includes(i)) : [...allCases];
  const variantOf: Record<(typeof allCases)[number], string | null> = {
    'no outbox (variant)': 'no-outbox',
    'outbox, no endpoint': null,
    'outbox, endpoint wants the type, not sending': 'no-worker',
    'outbox, endpoint wants the type, sending': null,
    'outbox, endpoint wants the type, nothing rendered (floor)': 'outbox-floor',
  };
  const figures: Record<string, number[]> = Object.fromEntries(cases.map((name) => [name, []]));
  // The server's CPU per request (user + system, /proc): steadier than req/s on a shared machine.
  const cpuFigures: Record<string, number[]> = Object.fromEntries(cases.map((name) => [name, []]));
  // The system part alone: on SQLite the commit's WAL writes and the checkpoints are system time.
  const sysFigures: Record<string, number[]> = Object.fromEntries(cases.map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const name of cases) {
      let endpointId: string | null = null;
      if (name.startsWith('outbox, endpoint wants the type')) {
        endpointId = (
          await createWebhookEndpoint(
            { database, clock: systemClock, allowPrivate: true, communityId: community.id },
            {
              url: receiver.url,
              events: ['calendar_event.registration.updated'],
            },
          )
        ).id;
      }
      const server = await startServer(env, variantOf[name]);
      const ticksBefore = readCpuTicks(server.child.pid);
      const result = await autocannon({
        url: `${server.base}/admin/v0/calendar_events/benchEvent01/attendees`,
        connections,
        duration: seconds,
        ...request,
      });
      const cpu = cpuPerRequest(ticksBefore, readCpuTicks(server.child.pid), result.requests.total);
      await stopServer(server.child);
      if (result.non2xx > 0 || result.errors > 0) throw new Error(`${name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
      figures[name]?.push(result.requests.average);
      if (cpu) cpuFigures[name]?.push(cpu.userUs + cpu.sysUs);
      if (cpu) sysFigures[name]?.push(cpu.sysUs);
      if (endpointId) await removeWebhookEndpoint({ database, communityId: null }, endpointId);
    }
  }
  const cpuBaseline = median(cpuFigures[cases[0]] as number[]);
  process.stdout.write('attendee update, server CPU per request (user + system), median:\n');
  for (const name of cases) {
    const values = cpuFigures[name] as number[];
    if (values.length === 0) continue;
    const value = median(values);
    process.stdout.write(
      `  ${name.padEnd(58)} ${value.toFixed(0).padStart(5)} µs  (${(((value - cpuBaseline) / cpuBaseline) * 100).toFixed(1)}%), of which system ${median(sysFigures[name] as number[]).toFixed(0)} µs  runs: ${values.map((v) => v.toFixed(0)).join(', ')}\n`,
    );
  }
  const baseline = median(figures[cases[0]] as number[]);
  process.stdout.write(`attendee update (${database.engine}, ${rounds} × ${seconds} s, ${connections} connections), median req/s:\n`);
  for (const name of cases) {
    const value = median(figures[name] as number[]);
    process.stdout.write(
      `  ${name.padEnd(58)} ${value.toFixed(0).padStart(7)}  (${(((value - baseline) / baseline) * 100).toFixed(1)}%)  runs: ${(figures[name] as number[]).map((v) => v.toFixed(0)).join(', ')}\n`,
    );
  }

  if (process.env.BENCH_NO_DELIVERIES) {
    receiver.server.close();
    await cleanup();
    return;
  }
  // Deliveries per second: 5,000 events, one endpoint, one worker, a local receiver answering 204.
  const endpoint = await createWebhookEndpoint(
    { database, clock: systemClock, allowPrivate: true, communityId: community.id },
    { url: receiver.url },
  );
  const total = 5000;
  for (let start = 0; start < total; start += 50) {
    await writeCommunityData({ database, clock: systemClock }, community.id, async (w) => {
      for (let i = start; i < start + 50; i++) w.emit('member.updated', () => ({ id: `m${i}`, full_name: 'Bench Member' }));
    });
  }
  const log = { info: () => {}, warn: () => {}, error: () => {} };
  const worker = new DeliveryWorker({ database, clock: systemClock, log, allowPrivate: true, timeoutMs: durationMs(5000) });
  const before = receiver.count();
  const started = performance.now();
  let sent = 0;
  while (sent < total) {
    const attempted = await worker.tick();
    if (attempted === 0) break;
    sent += attempted;
  }
  const elapsed = (performance.now() - started) / 1000;
  process.stdout.write(
    `deliveries (${database.engine}): ${sent} in ${elapsed.toFixed(2)} s = ${(sent / elapsed).toFixed(0)}/s (receiver got ${receiver.count() - before})\n`,
  );
  await removeWebhookEndpoint({ database, communityId: null }, endpoint.id);
  receiver.server.close();
  await cleanup();
}

await main();
