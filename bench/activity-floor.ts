// What SQLite itself charges for an activity record, below any JavaScript of ours (docs/activity.md,
// "The floor"): better-sqlite3 statements on copies of the 10k bench dataset (npm run bench --
// --build-only --sizes 10k), each variant on its own copy, alternating in blocks; CPU time (user +
// system) per write, medians of the blocks. A write is the version bump every member add makes
// (`none`), and each variant adds one part of the record to it, with a fixed record of a member add's
// size (no canonical text, no hash: those are ours, and measured by bench/activity-append.ts).
// `+ group of G` runs G writes in one transaction (a savepoint each): what a commit shared by
// concurrent requests would leave of each part.
//   taskset -c 0 node --import tsx bench/activity-floor.ts [BLOCKS] [WRITES_PER_BLOCK]
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { median } from './util.js';

const blocks = Number(process.argv[2] ?? 30);
const perBlock = Number(process.argv[3] ?? 400);
const dataset = join(import.meta.dirname, '.data', 'sqlite', '10k.db');
if (!existsSync(dataset)) throw new Error(`${dataset} is missing: npm run bench -- --build-only --sizes 10k`);

/** Which parts of the record a variant writes. */
interface Parts {
  row: boolean;
  filterIndexes: boolean;
  head: boolean;
  /** The record appended to a column of the communities row (a page the bump writes anyway), moved with its indexes every `tail` writes. */
  tail?: number;
  group: number;
}

interface Variant {
  name: string;
  parts: Parts;
  path: string;
  db: Sqlite.Database;
  run: () => void;
  cpu: number[];
}

const actorId = randomUUID();
const context = JSON.stringify({ request_id: randomUUID(), ip: '127.0.0.1', user_agent: 'wrk' });
const fakeHash = 'ab'.repeat(32);

function variant(name: string, parts: Parts): Variant {
  const path = join(import.meta.dirname, '.data', 'sqlite', `activity-floor-${name.replace(/\W+/g, '-')}.db`);
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
  copyFileSync(dataset, path);
  const db = new Sqlite(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  if (!parts.filterIndexes) db.exec('drop index activities_action; drop index activities_actor; drop index activities_target');
  db.exec('alter table communities add column activity_tail text');
  const communityId = (db.prepare('select id from communities order by id limit 1').get() as { id: string }).id;
  let seq = (db.prepare('select coalesce(max(seq), 0) as m from activities').get() as { m: number }).m;
  let tailLength = 0;
  const bump = db.prepare('update communities set members_version = members_version + 1 where id = ?');
  const bumpAppending = db.prepare(
    `update communities set members_version = members_version + 1, activity_tail = coalesce(activity_tail, '') || ? where id = ?`,
  );
  const readTail = db.prepare('select activity_tail as tail from communities where id = ?');
  const clearTail = db.prepare('update communities set activity_tail = null where id = ?');
  const readHead = db.prepare('select seq, hash from activity_chain_heads where community_id = ?');
  const insert = db.prepare(
    `insert into activities (community_id, seq, id, occurred_at, action, actor_type, actor_id, actor_label, target_type,
       target_id, target_name, context, changes, metadata, prev_hash, hash) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const upsertHead = db.prepare(
    `insert into activity_chain_heads (community_id, seq, prev_hash, hash) values (?, ?, ?, ?)
     on conflict (community_id) do update set seq = excluded.seq, prev_hash = excluded.prev_hash, hash = excluded.hash`,
  );
  const begin = db.prepare('begin immediate');
  const commit = db.prepare('commit');
  const savepoint = db.prepare('savepoint w');
  const release = db.prepare('release w');
  const record = () => {
    seq += 1;
    return [
      communityId,
      seq,
      randomUUID(),
      Date.now() * 1000,
      'member.created',
      'api_key',
      actorId,
      'bench',
      'member',
      randomUUID(),
      'Bench Member',
      context,
      null,
      null,
      fakeHash,
      fakeHash,
    ] as const;
  };
  const write = () => {
    if (parts.tail !== undefined) {
      bumpAppending.run(`${JSON.stringify(record())}\n`, communityId);
      tailLength += 1;
      if (tailLength < parts.tail) return;
      const { tail } = readTail.get(communityId) as { tail: string };
      for (const line of tail.split('\n')) if (line !== '') insert.run(...(JSON.parse(line) as unknown[]));
      clearTail.run(communityId);
      tailLength = 0;
      return;
    }
    bump.run(communityId);
    if (parts.head) readHead.get(communityId);
    if (!parts.row) return;
    const values = record();
    insert.run(...values);
    if (parts.head) upsertHead.run(communityId, values[1], fakeHash, fakeHash);
  };
  const run = () => {
    begin.run();
    if (parts.group === 1) write();
    else
      for (let i = 0; i < parts.group; i++) {
        savepoint.run();
        write();
        release.run();
      }
    commit.run();
  };
  return { name, parts, path, db, run, cpu: [] };
}

const variants = [
  variant('none', { row: false, filterIndexes: false, head: false, group: 1 }),
  variant('row', { row: true, filterIndexes: false, head: false, group: 1 }),
  variant('row + head', { row: true, filterIndexes: false, head: true, group: 1 }),
  variant('row + filter indexes', { row: true, filterIndexes: true, head: false, group: 1 }),
  variant('row + indexes + head (now)', { row: true, filterIndexes: true, head: true, group: 1 }),
  variant('tail of 8 in the community', { row: true, filterIndexes: true, head: false, tail: 8, group: 1 }),
  variant('tail of 8, no indexes', { row: true, filterIndexes: false, head: false, tail: 8, group: 1 }),
  variant('none, group of 4', { row: false, filterIndexes: false, head: false, group: 4 }),
  variant('now, group of 4', { row: true, filterIndexes: true, head: true, group: 4 }),
  variant('none, group of 16', { row: false, filterIndexes: false, head: false, group: 16 }),
  variant('now, group of 16', { row: true, filterIndexes: true, head: true, group: 16 }),
];

// The copies' writeback would otherwise land in the first blocks' system time.
execFileSync('sync');
for (const v of variants) for (let i = 0; i < 50; i++) v.run();
for (let block = 0; block < blocks; block++) {
  for (const v of block % 2 === 0 ? variants : [...variants].reverse()) {
    const commits = Math.max(1, Math.round(perBlock / v.parts.group));
    const before = process.cpuUsage();
    for (let i = 0; i < commits; i++) v.run();
    const spent = process.cpuUsage(before);
    v.cpu.push((spent.user + spent.system) / (commits * v.parts.group));
  }
}

const baseOf = (v: Variant) => variants.find((b) => !b.parts.row && b.parts.group === v.parts.group) ?? v;
console.log(`${'variant'.padEnd(30)} CPU µs a write   more than the same grouping without a record`);
for (const v of variants) {
  const own = median(v.cpu);
  console.log(`${v.name.padEnd(30)} ${own.toFixed(1).padStart(8)}   ${(own - median(baseOf(v).cpu)).toFixed(1).padStart(8)}`);
  v.db.close();
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${v.path}${suffix}`, { force: true });
}
