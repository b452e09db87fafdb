import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { feedRecord } from '../src/cli/seed/content.js';
import { eventRecord } from '../src/cli/seed/events.js';
import { profileRecord } from '../src/cli/seed/people.js';
import { todayUtc } from '../src/cli/seed/run-seed.js';
import { SeedWorld } from '../src/cli/seed/world.js';
import type { Engine } from '../src/db/database.js';
import { epochMillis } from '../src/shared/time.js';
import { cli } from './context.js';
import { DATASET_VERSION, ensurePostgresDatabase, withSearchPath } from './datasets.js';
import { pinned } from './server.js';
import { binPath, dataDir, type Log } from './util.js';

const run = promisify(execFile);

export interface ImportMeasurement {
  engine: Engine;
  events: number;
  fileMb: number;
  seconds: number;
}

/** Writes an import file section by section, record by record (a file of hundreds of MB never in memory). */
export async function writeImportSections(
  path: string,
  sections: [name: string, count: number, make: (i: number) => unknown][],
): Promise<void> {
  const partial = `${path}.partial`;
  const out = createWriteStream(partial);
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  await write('{');
  for (const [index, [name, count, make]] of sections.entries()) {
    await write(`${JSON.stringify(name)}:[`);
    for (let i = 0; i < count; i++) await write(`${i === 0 ? '' : ','}\n${JSON.stringify(make(i))}`);
    await write(`]${index === sections.length - 1 ? '' : ','}\n`);
  }
  await write('}\n');
  out.end();
  await once(out, 'finish');
  renameSync(partial, path);
}

/** Writes an import file of `events` events (with the profiles and feeds they name). */
async function writeImportFile(path: string, events: number): Promise<void> {
  const world = new SeedWorld({
    seed: 'bench-import',
    anchor: todayUtc(epochMillis(Date.now())),
    counts: { profiles: 5000, members: 0, groups: 0, feeds: 20, posts: 0, events },
  });
  await writeImportSections(path, [
    ['profiles', world.options.counts.profiles, (i) => profileRecord(world, i)],
    ['feeds', world.options.counts.feeds, (i) => feedRecord(world, i)],
    ['calendar_events', events, (i) => eventRecord(world, i)],
  ]);
}

/** A fresh database for an import: an empty SQLite file, or an empty PostgreSQL schema (`bench_<name>`). */
export async function freshDatabaseUrl(engine: Engine, postgresUrl: string, name = 'import'): Promise<string> {
  if (engine === 'sqlite') {
    const path = join(dataDir, 'sqlite', `${name}-target.db`);
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
    return `sqlite:${path}`;
  }
  await ensurePostgresDatabase(postgresUrl);
  const pg = await import('pg');
  const client = new pg.default.Client({ connectionString: postgresUrl });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS bench_${name} CASCADE`);
    await client.query(`CREATE SCHEMA bench_${name}`);
  } finally {
    await client.end();
  }
  return withSearchPath(postgresUrl, `bench_${name}`);
}

/** Times `community-admin import FILE` of `events` events into an empty community (process pinned to core 0). */
export async function measureImport(engine: Engine, events: number, postgresUrl: string, log: Log): Promise<ImportMeasurement> {
  // JSON inside; not named .json so that biome (which lints bench/**) leaves the 250 MB file alone.
  const path = join(dataDir, `import-v${DATASET_VERSION}-${events}.data`);
  if (!existsSync(path)) {
    log.line(`writing the import file of ${events} events`);
    await writeImportFile(path, events);
  }
  const databaseUrl = await freshDatabaseUrl(engine, postgresUrl);
  await cli(databaseUrl, ['migrate', '--json']);
  const community = JSON.parse(await cli(databaseUrl, ['community', 'create', '--name', 'Import', '--plan', 'enterprise', '--json'])) as {
    id: string;
  };
  const command = pinned(0, [process.execPath, binPath, 'import', path, '--community', community.id, '--json']);
  const started = performance.now();
  const { stdout } = await run(command[0] as string, command.slice(1), {
    cwd: dataDir,
    env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' },
    maxBuffer: 1024 * 1024,
  });
  const seconds = (performance.now() - started) / 1000;
  const counts = JSON.parse(stdout) as Record<string, number>;
  if (counts.calendar_events !== events) throw new Error(`import reported ${stdout}`);
  return { engine, events, fileMb: Math.round(statSync(path).size / 1e5) / 10, seconds: Math.round(seconds * 10) / 10 };
}
