import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { memberRecord } from '../src/cli/seed/people.js';
import { type SeedTarget, seedRange, seedSections, todayUtc, totalOf } from '../src/cli/seed/run-seed.js';
import { allTags } from '../src/cli/seed/vocabulary.js';
import { type SeedCounts, SeedWorld } from '../src/cli/seed/world.js';
import { type Database, type Engine, ensurePostgresSchema, migrateToLatest, openDatabase } from '../src/db/database.js';
import { createCommunity } from '../src/modules/communities/communities.commands.js';
import { systemClock } from '../src/shared/clock.js';
import { epochMillis } from '../src/shared/time.js';
import { copySqliteToPostgres } from './copy-to-postgres.js';
import { dataDir, type Log } from './util.js';

/*
 * The datasets of the suite, built once through the seed code (that is, through the real import)
 * and cached under bench/.data/ until DATASET_VERSION or the spec changes.
 */

export const datasetNames = ['10k', '100k', '1m', 'multi'] as const;
export type DatasetName = (typeof datasetNames)[number];

/** Bump when the generator or a spec changes: cached datasets of an older version are rebuilt. */
export const DATASET_VERSION = 2;

interface CommunitySpec {
  seed: string;
  counts: SeedCounts;
}

const community = (seed: string, events: number, posts: number, profiles: number, feeds: number, groups: number): CommunitySpec => ({
  seed,
  counts: { profiles, members: profiles, groups, feeds, posts, events },
});

/** The community every list scenario reads; in `multi` it is the same data as in `10k` (same seed and counts). */
const target10k = community('bench-target', 10_000, 10_000, 5_000, 20, 10);

const specs: Readonly<Record<DatasetName, { communities: CommunitySpec[]; interleave: number }>> = {
  '10k': { communities: [target10k], interleave: 10_000 },
  '100k': { communities: [community('bench-target', 100_000, 100_000, 50_000, 40, 40)], interleave: 10_000 },
  '1m': { communities: [community('bench-target', 1_000_000, 1_000_000, 50_000, 40, 40)], interleave: 10_000 },
  // 100 communities of 10k events: events written in rounds of 1,000 per community, so that rows
  // of different communities interleave in the table as they do when communities grow side by side.
  multi: {
    communities: [target10k, ...Array.from({ length: 99 }, (_, i) => community(`bench-other-${i + 1}`, 10_000, 500, 500, 10, 3))],
    interleave: 1_000,
  },
};

/** A built dataset: where it is and what the scenarios need to address it. */
export interface BenchDataset {
  version: number;
  name: DatasetName;
  engine: Engine;
  /** DATABASE_URL of the server (PostgreSQL: with the dataset's schema in the search path). */
  databaseUrl: string;
  anchor: string;
  builtAt: string;
  target: { communityId: string; feedId: string; tagIds: string[]; memberEmail: string; counts: SeedCounts };
  totals: { communities: number; events: number; posts: number; profiles: number };
  /** Wall-clock seconds of the build, per section (summed over communities) and overall. */
  buildSeconds: Record<string, number>;
}

// Not .json: biome lints bench/** and would trip over generated files (it cannot see .gitignore).
const metaPath = (engine: Engine, name: DatasetName) => join(dataDir, engine, `${name}.meta`);
const sqlitePath = (name: DatasetName) => join(dataDir, 'sqlite', `${name}.db`);
const schemaOf = (name: DatasetName) => `bench_${name}`;

/** A PostgreSQL URL whose connections use `schema` (the pg driver passes `options` to the server). */
export function withSearchPath(url: string, schema: string): string {
  return `${url}${url.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
}

function readMeta(engine: Engine, name: DatasetName): BenchDataset | null {
  const path = metaPath(engine, name);
  if (!existsSync(path)) return null;
  const meta = JSON.parse(readFileSync(path, 'utf8')) as BenchDataset;
  if (meta.version !== DATASET_VERSION) return null;
  if (engine === 'sqlite' && !existsSync(sqlitePath(name))) return null;
  return meta;
}

/** Creates the PostgreSQL database of the URL when it does not exist yet. */
export async function ensurePostgresDatabase(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    await client.end();
    return;
  } catch (error) {
    await client.end().catch(() => {});
    if ((error as { code?: string }).code !== '3D000') throw error;
  }
  const parsed = new URL(url);
  const name = parsed.pathname.slice(1);
  parsed.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: parsed.toString() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name.replace(/"/g, '')}"`);
  } finally {
    await admin.end();
  }
}

async function dropPostgresSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** Opens a fresh, empty database for the dataset (a .partial SQLite file, or a recreated schema). */
async function openFresh(engine: Engine, name: DatasetName, postgresUrl: string): Promise<{ database: Database; databaseUrl: string }> {
  if (engine === 'sqlite') {
    const partial = `${sqlitePath(name)}.partial`;
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${partial}${suffix}`, { force: true });
    mkdirSync(join(dataDir, 'sqlite'), { recursive: true });
    const database = openDatabase({ engine: 'sqlite', path: partial });
    // Bulk load only: a big page cache, and no fsync (a crash just means building again).
    database.sqlite?.pragma('cache_size = -524288');
    database.sqlite?.pragma('synchronous = OFF');
    return { database, databaseUrl: `sqlite:${sqlitePath(name)}` };
  }
  await ensurePostgresDatabase(postgresUrl);
  await dropPostgresSchema(postgresUrl, schemaOf(name));
  await ensurePostgresSchema(postgresUrl, schemaOf(name));
  const database = openDatabase({ engine: 'postgres', url: postgresUrl }, { schema: schemaOf(name), poolSize: 2 });
  return { database, databaseUrl: withSearchPath(postgresUrl, schemaOf(name)) };
}

/**
 * The PostgreSQL dataset as a copy of the SQLite one (BENCH_PG_COPY=1, when the SQLite dataset is
 * built): the same rows, in minutes instead of the hour and more the import takes at 1M events.
 */
async function copyFromSqlite(name: DatasetName, postgresUrl: string, log: Log): Promise<BenchDataset> {
  const source = readMeta('sqlite', name);
  if (!source) throw new Error(`BENCH_PG_COPY: build the SQLite dataset ${name} first (--engine sqlite --build-only --sizes ${name})`);
  const started = performance.now();
  const { database, databaseUrl } = await openFresh('postgres', name, postgresUrl);
  try {
    await migrateToLatest(database);
  } finally {
    await database.close();
  }
  const seconds = await copySqliteToPostgres(sqlitePath(name), databaseUrl, log.throttled(`postgres ${name} copy`));
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('vacuum analyze');
  } finally {
    await client.end();
  }
  const total = (performance.now() - started) / 1000;
  return {
    ...source,
    engine: 'postgres',
    databaseUrl,
    builtAt: new Date().toISOString(),
    buildSeconds: {
      ...Object.fromEntries(Object.entries(seconds).map(([k, v]) => [`copy ${k}`, Math.round(v * 10) / 10])),
      total: Math.round(total * 10) / 10,
    },
  };
}

/** Writes the dataset; returns its description (also written next to it). */
async function build(engine: Engine, name: DatasetName, postgresUrl: string, log: Log): Promise<BenchDataset> {
  if (engine === 'postgres' && process.env.BENCH_PG_COPY === '1') return copyFromSqlite(name, postgresUrl, log);
  const spec = specs[name];
  const started = performance.now();
  const { database, databaseUrl } = await openFresh(engine, name, postgresUrl);
  const seconds: Record<string, number> = {};
  const timed = async (section: string, run: () => Promise<unknown>) => {
    const t = performance.now();
    await run();
    seconds[section] = (seconds[section] ?? 0) + (performance.now() - t) / 1000;
  };
  // BENCH_ANCHOR=YYYY-MM-DD rebuilds a dataset on the same dates as another (isolation compares 10k with multi).
  const anchor = process.env.BENCH_ANCHOR ? todayUtc(epochMillis(Date.parse(process.env.BENCH_ANCHOR))) : todayUtc(epochMillis(Date.now()));
  const targets: SeedTarget[] = [];
  try {
    await migrateToLatest(database);
    for (const [i, c] of spec.communities.entries()) {
      const created = await createCommunity(
        { database, clock: systemClock },
        { name: i === 0 ? 'Bench target' : `Bench other ${i}`, plan: 'enterprise' },
      );
      const world = new SeedWorld({ seed: c.seed, anchor, counts: c.counts });
      targets.push({
        database,
        clock: systemClock,
        world,
        communityId: created.id,
        chunkSize: 10_000,
        progress: log.throttled(`${engine} ${name} community ${i}`),
      });
    }
    for (const section of seedSections.filter((s) => s !== 'calendar_events')) {
      for (const t of targets) await timed(section, () => seedRange(t, section, 0, totalOf(t.world.options.counts, section)));
    }
    const maxEvents = Math.max(...spec.communities.map((c) => c.counts.events));
    for (let from = 0; from < maxEvents; from += spec.interleave) {
      for (const t of targets) {
        const to = Math.min(t.world.options.counts.events, from + spec.interleave);
        if (from < to) await timed('calendar_events', () => seedRange(t, 'calendar_events', from, to));
      }
    }
    if (engine === 'sqlite') database.sqlite?.pragma('wal_checkpoint(TRUNCATE)');
    // What autovacuum would have done by the time a real database of this size serves traffic.
    else await sql`vacuum analyze`.execute(database.db);
  } finally {
    await database.close();
  }
  if (engine === 'sqlite') renameSync(`${sqlitePath(name)}.partial`, sqlitePath(name));
  seconds.total = (performance.now() - started) / 1000;
  const [first] = targets;
  if (!first) throw new Error(`dataset ${name} has no community`);
  const sum = (pick: (c: SeedCounts) => number) => spec.communities.reduce((n, c) => n + pick(c.counts), 0);
  return {
    version: DATASET_VERSION,
    name,
    engine,
    databaseUrl,
    anchor: new Date(anchor).toISOString(),
    builtAt: new Date().toISOString(),
    target: {
      communityId: first.communityId,
      feedId: first.world.feeds[0]?.id ?? '',
      // The two most used tags (the generator favours the first ones of the list).
      tagIds: allTags.slice(0, 2).map((tag) => tag.id),
      memberEmail: memberRecord(first.world, 11).email,
      counts: first.world.options.counts,
    },
    totals: {
      communities: spec.communities.length,
      events: sum((c) => c.events),
      posts: sum((c) => c.posts),
      profiles: sum((c) => c.profiles),
    },
    buildSeconds: Object.fromEntries(Object.entries(seconds).map(([k, v]) => [k, Math.round(v * 10) / 10])),
  };
}

/** The dataset, built first if it is missing or out of date. */
export async function ensureDataset(engine: Engine, name: DatasetName, postgresUrl: string, log: Log): Promise<BenchDataset> {
  const cached = readMeta(engine, name);
  if (cached && (engine === 'sqlite' || cached.databaseUrl === withSearchPath(postgresUrl, schemaOf(name)))) return cached;
  log.line(`building dataset ${name} on ${engine} (cached under bench/.data/ afterwards)`);
  const meta = await build(engine, name, postgresUrl, log);
  mkdirSync(join(dataDir, engine), { recursive: true });
  writeFileSync(metaPath(engine, name), `${JSON.stringify(meta, null, 2)}\n`);
  log.line(`built ${name} on ${engine} in ${meta.buildSeconds.total} s (events: ${meta.buildSeconds.calendar_events} s)`);
  return meta;
}
