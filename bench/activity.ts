// Reading the activity log at size (docs/activity.md, "Costs"): a community with N records (default
// 1,000,000) spread over ten actions, twenty keys and as many targets as records, then GET
// /admin/v0/activities pages, filtered each way, measured with wrk (10 connections, 10 s) against a
// real server process, with SQLite's plan of each filter's statements (they must use an index).
// Usage: npm run bench:activity [records]   (SQLite in bench/.data/activity/; the file is kept and reused)
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Insertable, sql } from 'kysely';
import { migrateToLatest, openDatabase } from '../src/db/database.js';
import type { ActivitiesTable } from '../src/db/schema.js';
import { canonicalText, chainHash } from '../src/modules/activities/activities.records.js';
import { createApiKey } from '../src/modules/api-keys/api-keys.commands.js';
import { createCommunity } from '../src/modules/communities/communities.commands.js';
import { activityActions } from '../src/shared/activity.js';
import { systemClock } from '../src/shared/clock.js';
import { epochMicros } from '../src/shared/time.js';
import { formatJsonTimestamp } from '../src/shared/timestamps.js';

const records = Number(process.argv[2] ?? 1_000_000);
const root = fileURLToPath(new URL('../', import.meta.url));
const dir = join(root, 'bench/.data/activity');
const path = join(dir, `${records}.db`);
const actions = activityActions.slice(0, 10);

async function main(): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const fresh = !existsSync(path);
  const database = openDatabase({ engine: 'sqlite', path });
  await migrateToLatest(database);
  const community = fresh
    ? await createCommunity({ database, clock: systemClock }, { name: 'Activity bench', plan: 'enterprise' })
    : await database.db.selectFrom('communities').select('id').executeTakeFirstOrThrow();
  if (fresh) {
    const started = Date.now();
    let prev = '';
    const t0 = Date.now() * 1000 - records * 1000;
    for (let offset = 0; offset < records; offset += 5000) {
      const rows: Insertable<ActivitiesTable>[] = [];
      for (let i = offset; i < Math.min(records, offset + 5000); i++) {
        const record = {
          id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
          occurred_at: formatJsonTimestamp(epochMicros(t0 + i * 1000)),
          action: actions[i % actions.length] as (typeof actions)[number],
          actor: { type: 'api_key' as const, id: `key-${i % 20}`, label: `key ${i % 20}` },
          target: { type: 'calendar_event', id: `evt-${i}`, name: `Event ${i}` },
          context: { request_id: `req-${i}`, ip: '203.0.113.9', user_agent: 'bench' },
          changes: null,
          metadata: null,
        };
        const hash = chainHash(prev, canonicalText(record));
        rows.push({
          community_id: community.id,
          seq: i + 1,
          id: record.id,
          occurred_at: epochMicros(t0 + i * 1000),
          action: record.action,
          actor_type: 'api_key',
          actor_id: record.actor.id,
          actor_label: record.actor.label,
          target_type: record.target.type,
          target_id: record.target.id,
          target_name: record.target.name,
          context: JSON.stringify(record.context),
          changes: null,
          metadata: null,
          prev_hash: prev,
          hash,
        });
        prev = hash;
      }
      await database.db.transaction().execute(async (tx) => {
        for (let j = 0; j < rows.length; j += 500)
          await tx
            .insertInto('activities')
            .values(rows.slice(j, j + 500))
            .execute();
      });
    }
    await database.db
      .insertInto('activity_chain_heads')
      .values({ community_id: community.id, seq: records, prev_hash: '', hash: prev })
      .onConflict((oc) => oc.column('community_id').doUpdateSet({ seq: records, hash: prev }))
      .execute();
    await sql`analyze`.execute(database.db);
    console.log(`generated ${records} records in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  const key = (await createApiKey({ database, clock: systemClock, communityId: community.id }, { label: 'bench' })).key;
  const queries = [
    '',
    '?action=calendar_event.deleted',
    '?action=calendar_event.*',
    '?actor_type=api_key&actor_id=key-7',
    `?target_type=calendar_event&target_id=evt-${Math.floor(records / 2)}`,
    '?action=member.created&page=100',
  ];
  for (const [label, text] of [
    ['action', `select count(*) from activities where community_id = '${community.id}' and action = 'member.created'`],
    [
      'action page',
      `select * from activities where community_id = '${community.id}' and action = 'member.created' order by seq desc limit 20`,
    ],
    [
      'actor',
      `select * from activities where community_id = '${community.id}' and actor_type = 'api_key' and actor_id = 'key-7' order by seq desc limit 20`,
    ],
    [
      'target',
      `select * from activities where community_id = '${community.id}' and target_type = 'x' and target_id = 'y' order by seq desc limit 20`,
    ],
  ] as const) {
    const plan = await sql.raw<{ detail: string }>(`explain query plan ${text}`).execute(database.db);
    console.log(`plan ${label}: ${plan.rows.map((r) => r.detail).join(' / ')}`);
  }
  await database.close();

  const port = 3990 + Math.floor(Math.random() * 5);
  const server = spawn(process.execPath, [join(root, 'bin/community-admin.js'), 'serve'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      DATABASE_URL: `sqlite:${path}`,
      RATE_LIMIT_PER_SECOND: '1000000000',
    },
    stdio: 'ignore',
  });
  try {
    for (let i = 0; i < 100; i++) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) break;
      } catch {}
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    for (const query of queries) {
      const url = `http://127.0.0.1:${port}/admin/v0/activities${query}`;
      const out = execFileSync('wrk', ['-t1', '-c10', '-d10s', '-H', `authorization: Bearer ${key}`, url], { encoding: 'utf8' });
      const rps = /Requests\/sec:\s+([\d.]+)/.exec(out)?.[1];
      const latency = /Latency\s+(\S+)/.exec(out)?.[1];
      const failed = /Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1];
      console.log(`GET /activities${query || ' (no filter)'}: ${rps} req/s, mean latency ${latency}${failed ? `, NON-2XX ${failed}` : ''}`);
    }
  } finally {
    server.kill('SIGTERM');
  }
}

void main();
