import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import type PgModule from 'pg';
import type { DatabaseTarget } from '../config.js';
import { lazyRequire } from '../shared/lazy-require.js';
import type { Db } from './handles.js';
import { namingPool } from './pg-statements.js';
import { registerPostgresPool, registerSqliteHandle } from './prepared-query.js';
import type { DB } from './schema.js';
import { migratorOf } from './schema-migrator.js';
import { SqliteCommitWatch } from './sqlite-commit-watch.js';
import { sqliteDriver } from './sqlite-driver.js';
import { type WriteLockWaits, withStatementCache } from './statement-cache.js';

export type Engine = 'sqlite' | 'postgres';
export type { Db, Tx } from './handles.js';

/** An open database: the Kysely handle plus what differs between engines. */
export interface Database {
  engine: Engine;
  db: Db;
  /** The raw better-sqlite3 handle when on SQLite (hot paths may prepare statements on it). */
  sqlite: SqliteDatabase.Database | null;
  /** SQLite in WAL mode: tells cheaply whether anything was committed since the last look (else null). */
  commitWatch(): SqliteCommitWatch | null;
  close(): Promise<void>;
  /** Saturation figures for metrics, read when Prometheus scrapes. */
  stats(): DatabaseStats;
}

/** PostgreSQL: the pool's connections; SQLite: how often and how long a write waited for the write lock. */
export type DatabaseStats =
  | { engine: 'postgres'; connections: number; idle: number; waiting: number; max: number }
  | { engine: 'sqlite'; writeLockWaits: number; writeLockWaitSeconds: number };

const loadPg = lazyRequire<typeof PgModule>('pg');

/** The PostgreSQL driver, loaded on first use (start-up time) and set up once. */
function pgDriver(): typeof PgModule {
  const pg = loadPg();
  // COUNT(*) and bigint columns come back from pg as strings; every such value here fits a double.
  pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
  pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value) => Number(value));
  return pg;
}

export interface OpenOptions {
  /** PostgreSQL schema to use (created if missing): lets test files run in parallel on one database. */
  schema?: string;
  poolSize?: number;
}

/** Opens the database named by the target; SQLite in WAL mode, PostgreSQL through a pool. */
export function openDatabase(target: DatabaseTarget, options: OpenOptions = {}): Database {
  if (target.engine === 'sqlite') {
    if (target.path !== ':memory:') mkdirSync(dirname(target.path), { recursive: true });
    const sqlite = new (sqliteDriver())(target.path);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('foreign_keys = ON');
    const lockWaits: WriteLockWaits = { count: 0, seconds: 0 };
    const statements = withStatementCache(sqlite, undefined, lockWaits);
    const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: statements }) });
    registerSqliteHandle(db, sqlite, statements);
    // Opened on first use: the -shm file exists once a connection has used the WAL.
    let watch: SqliteCommitWatch | null = null;
    return {
      engine: 'sqlite',
      db,
      sqlite,
      commitWatch: () => {
        if (watch === null && target.path !== ':memory:') watch = SqliteCommitWatch.open(target.path);
        return watch;
      },
      close: async () => {
        watch?.close();
        watch = null;
        await db.destroy();
      },
      stats: () => ({ engine: 'sqlite', writeLockWaits: lockWaits.count, writeLockWaitSeconds: lockWaits.seconds }),
    };
  }
  const max = options.poolSize ?? 10;
  const pool = new (pgDriver().Pool)({
    connectionString: target.url,
    max,
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  });
  // An idle client that errors (server restart) must not crash the process.
  pool.on('error', () => {});
  // Parameterised texts run as named prepared statements, parsed once per connection (pg-statements.ts).
  const naming = namingPool(pool);
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: naming }) });
  registerPostgresPool(db, naming);
  return {
    engine: 'postgres',
    db,
    sqlite: null,
    commitWatch: () => null,
    close: async () => {
      await db.destroy();
    },
    stats: () => ({ engine: 'postgres', connections: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max }),
  };
}

/** Creates a PostgreSQL schema if missing (used by tests and by operators who want one). */
export async function ensurePostgresSchema(url: string, schema: string): Promise<void> {
  const client = new (pgDriver().Client)({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema.replace(/"/g, '')}"`);
  } finally {
    await client.end();
  }
}

/** Brings the schema up to date; returns the names of the migrations applied now. */
export async function migrateToLatest(database: Database): Promise<string[]> {
  const { error, results } = await (await migratorOf(database)).migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** True when the database answers a trivial query. */
export async function isDatabaseReachable(database: Database): Promise<boolean> {
  try {
    await sql`select 1`.execute(database.db);
    return true;
  } catch {
    return false;
  }
}

/** True when the error is a unique-constraint violation on either engine. */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}
