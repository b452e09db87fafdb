// What a change's activity record costs the write path, in process, on SQLite (docs/activity.md,
// "Measurements"): writes of the write path that bump the members version, with and without a
// member.created record, each on its own copy of the 10k bench dataset (npm run bench -- --build-only
// --sizes 10k), alternating in blocks; CPU time (user + system) per write, medians of the blocks.
// A third copy without the log's three filter indexes gives their share.
//   taskset -c 0 node --import tsx bench/activity-append.ts [BLOCKS] [WRITES_PER_BLOCK]
import { randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type Database, openDatabase } from '../src/db/database.js';
import type { Actor, RequestContext } from '../src/shared/activity.js';
import { systemClock } from '../src/shared/clock.js';
import { writeCommunityData } from '../src/write-path/write-community-data.js';

const blocks = Number(process.argv[2] ?? 20);
const perBlock = Number(process.argv[3] ?? 200);
const dataset = join(import.meta.dirname, '.data', 'sqlite', '10k.db');
if (!existsSync(dataset)) throw new Error(`${dataset} is missing: npm run bench -- --build-only --sizes 10k`);

const actor: Actor = { type: 'api_key', id: randomUUID(), label: 'bench' };
const requestContext: RequestContext = { request_id: randomUUID(), ip: '127.0.0.1', user_agent: null };

interface Variant {
  name: string;
  path: string;
  database: Database;
  communityId: string;
  record: boolean;
  cpu: number[];
}

async function variant(name: string, record: boolean, prepare?: (database: Database) => void): Promise<Variant> {
  const path = join(import.meta.dirname, '.data', 'sqlite', `activity-append-${name}.db`);
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
  copyFileSync(dataset, path);
  const database = openDatabase({ engine: 'sqlite', path });
  prepare?.(database);
  const community = await database.db.selectFrom('communities').select('id').orderBy('id').executeTakeFirstOrThrow();
  return { name, path, database, communityId: community.id, record, cpu: [] };
}

const write = (v: Variant) =>
  writeCommunityData({ database: v.database, clock: systemClock, actor, requestContext }, v.communityId, async (w) => {
    w.touch('members');
    if (v.record) w.record({ action: 'member.created', target: { type: 'member', id: randomUUID(), name: 'Bench Member' } });
  });

const variants = [
  await variant('none', false),
  await variant('record', true),
  await variant('record-no-filter-indexes', true, (database) =>
    database.sqlite?.exec('drop index activities_action; drop index activities_actor; drop index activities_target'),
  ),
];
for (const v of variants) for (let i = 0; i < 300; i++) await write(v);
for (let block = 0; block < blocks; block++) {
  for (const v of block % 2 === 0 ? variants : [...variants].reverse()) {
    const before = process.cpuUsage();
    for (let i = 0; i < perBlock; i++) await write(v);
    const spent = process.cpuUsage(before);
    v.cpu.push((spent.user + spent.system) / perBlock);
  }
}
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return ((sorted[(sorted.length - 1) >> 1] ?? 0) + (sorted[sorted.length >> 1] ?? 0)) / 2;
};
const none = median(variants[0]?.cpu ?? []);
for (const v of variants) {
  console.log(
    `${v.name.padEnd(26)} ${median(v.cpu).toFixed(1).padStart(7)} CPU µs a write (${(median(v.cpu) - none).toFixed(1)} more than none)`,
  );
  await v.database.close();
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${v.path}${suffix}`, { force: true });
}
