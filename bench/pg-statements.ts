// Parse messages and statements per request, in-process, on the pgplan schema of the bench database.
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { openDatabase } from '../src/db/database.js';
import { statementNames } from '../src/db/pg-statements.js';
import { createApiKey } from '../src/modules/api-keys/api-keys.commands.js';
import { systemClock } from '../src/shared/clock.js';
import { epochMillis, microsFromMillis } from '../src/shared/time.js';
import { testConfig } from '../test/support/harness.js';
import { benchEventStart } from './scenarios.js';

const counts = { parse: 0, bind: 0 };
const proto = (pg as unknown as { Connection: { prototype: Record<string, (...a: unknown[]) => unknown> } }).Connection.prototype;
for (const k of ['parse', 'bind'] as const) {
  const orig = proto[k];
  proto[k] = function (this: unknown, ...a: unknown[]) {
    counts[k]++;
    return orig.apply(this, a);
  };
}
// SQL_LOG=1: print the statements of one request of each scenario.
let logSql = false;
const clientProto = (pg as unknown as { Client: { prototype: { query: (...a: unknown[]) => unknown } } }).Client.prototype;
const originalQuery = clientProto.query;
clientProto.query = function (this: unknown, ...a: unknown[]) {
  const text = typeof a[0] === 'string' ? a[0] : (a[0] as { text?: string } | undefined)?.text;
  if (logSql) console.log('SQL>', String(text).replace(/\s+/g, ' ').slice(0, 260));
  return originalQuery.apply(this, a);
};
if (process.env.UNNAMED) {
  statementNames.nameOf = () => undefined;
  statementNames.register = () => {};
}
// Usage: BENCH_DATABASE_URL=postgres://... node --import tsx bench/pg-statements.ts SCHEMA COMMUNITY_ID
//   (UNNAMED=1: as before named statements; CACHED=1: the cached reads; RUNS=n: requests measured, default 100)
const [schema = 'pgplan', community = ''] = process.argv.slice(2);
// A first argument ending in .db is a SQLite dataset (bench/.data/sqlite/100k.db): the same requests, for comparison.
const database = schema.endsWith('.db')
  ? openDatabase({ engine: 'sqlite', path: schema })
  : openDatabase({ engine: 'postgres', url: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/bench' }, { schema });
const app = await buildApp({
  config: testConfig(process.env.CACHED ? {} : { RESPONSE_CACHE_MB: '0' }),
  database,
  clock: systemClock,
  logger: false,
});
await app.ready();
const key = await createApiKey({ database, clock: systemClock, communityId: community }, { label: 'parses' });
const headers = { authorization: `Bearer ${key.key}` };
let n = 0;
const runs = Number(process.env.RUNS ?? 100);
const eventId = (
  JSON.parse((await app.inject({ url: '/admin/v0/calendar_events?per_page=1', headers })).body) as { data: { records: { id: string }[] } }
).data.records[0]?.id;
const cachedScenarios: [string, () => Promise<unknown>][] = [
  ['events.get (cached)', () => app.inject({ url: `/admin/v0/calendar_events/${eventId}`, headers })],
  ['events.list (cached)', () => app.inject({ url: '/admin/v0/calendar_events?page=3&per_page=20', headers })],
];
const uncachedScenarios: [string, () => Promise<unknown>][] = [
  ['events.list.uncached', () => app.inject({ url: '/admin/v0/calendar_events?page=3&per_page=20', headers })],
  ['posts.home.uncached', () => app.inject({ url: '/admin/v0/feeds/home/posts?page=3&per_page=20', headers })],
  ['feeds.list', () => app.inject({ url: '/admin/v0/feeds?per_page=20', headers })],
  [
    'events.create',
    () =>
      app.inject({
        method: 'POST',
        url: '/admin/v0/calendar_events',
        headers: { ...headers, 'idempotency-key': crypto.randomUUID() },
        payload: { title: `Bench created ${++n}`, start_date: benchEventStart },
      }),
  ],
  [
    'members.add',
    () =>
      app.inject({
        method: 'POST',
        url: '/admin/v0/members',
        headers: { ...headers, 'idempotency-key': crypto.randomUUID() },
        payload: { full_name: 'Bench Member', email: `bench-p${process.pid}-${++n}@bench.example.com` },
      }),
  ],
];
for (const [name, run] of process.env.CACHED ? cachedScenarios : uncachedScenarios) {
  for (let i = 0; i < 20; i++) {
    const r = (await run()) as { statusCode: number; body: string };
    if (r.statusCode >= 300) {
      console.log(name, r.statusCode, r.body.slice(0, 200));
      break;
    }
  }
  if (process.env.SQL_LOG) {
    logSql = true;
    console.log(`-- ${name}`);
    await run();
    logSql = false;
  }
  counts.parse = 0;
  counts.bind = 0;
  const t0 = process.cpuUsage();
  for (let i = 0; i < runs; i++) await run();
  const cpu = process.cpuUsage(t0);
  console.log(
    `${name}: ${(counts.parse / runs).toFixed(2)} Parse, ${(counts.bind / runs).toFixed(2)} statements per request; client CPU ${((cpu.user + cpu.system) / runs).toFixed(0)} µs/req (noisy)`,
  );
}
await database.db
  .deleteFrom('calendar_events')
  .where('start_at', '=', microsFromMillis(epochMillis(Date.parse(benchEventStart))))
  .execute()
  .catch(() => {});
await database.db
  .deleteFrom('members')
  .where('email', 'like', 'bench-p%')
  .execute()
  .catch(() => {});
await app.close();
