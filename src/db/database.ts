import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import type PgModule from 'pg';
import type { DatabaseTarget, DatabaseTimeouts } from '../config.js';
import { lazyRequire } from '../shared/lazy-require.js';
import { type DurationMs, durationMs } from '../shared/time.js';
import type { Db } from './handles.js';
import { namingPool } from './pg-statements.js';
import { holdSqliteWrites, registerPostgresPool, registerSqliteHandle, registerSqliteReadThread } from './prepared-query.js';
import type { DB } from './schema.js';
import { migratorOf } from './schema-migrator.js';
import { SqliteCheckpoints } from './sqlite-checkpoints.js';
import { noFrames, SqliteCommitWatch } from './sqlite-commit-watch.js';
import { sqliteDriver } from './sqlite-driver.js';
import { SqliteReadThread } from './sqlite-read-thread.js';
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
  /** PostgreSQL: the pool's size and when each connection in use was taken (null on SQLite). */
  poolUse(): { size: number; checkedOutSince: number[] } | null;
  /** Closes every connection; a connection that does not answer is given up after half a second. */
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

/** node-postgres' Client with its own connect timeout (pg-pool gives its clients its own options). */
function clientConnectingWithin(pg: typeof PgModule, connectMs: DurationMs): typeof PgModule.Client {
  return class extends pg.Client {
    constructor(config?: string | PgModule.ClientConfig) {
      super({ ...(typeof config === 'string' ? { connectionString: config } : config), connectionTimeoutMillis: connectMs });
    }
  };
}

export interface OpenOptions {
  /** PostgreSQL schema to use (created if missing): lets test files run in parallel on one database. */
  schema?: string;
  poolSize?: number;
  /**
   * The server's bounds on silence (absent for the CLI, whose imports and migrations may run long):
   * statement_timeout on the server, a client-side query timeout a little above it, a connect
   * timeout (also the longest wait for a free pooled connection), TCP keepalive; SQLite waits for a
   * lock at most statementMs.
   */
  timeouts?: DatabaseTimeouts;
  /** PostgreSQL ends a session left idle inside a transaction this long (a client gone silent mid-write). */
  idleInTransactionMs?: DurationMs;
  /** SQLite: checkpoint the WAL on the read thread, not at the end of a commit on this connection (the server's). */
  checkpointsOffLoop?: boolean;
}

/** How much longer than statement_timeout the client waits for an answer (the cancel's round trip). */
export const queryTimeoutMarginMs = durationMs(1000);
/** How long close() waits for connections to end before giving them up (a stop's grace is short). */
const closeGraceMs = 500;

/** Opens the database named by the target; SQLite in WAL mode, PostgreSQL through a pool. */
export function openDatabase(target: DatabaseTarget, options: OpenOptions = {}): Database {
  if (target.engine === 'sqlite') {
    if (target.path !== ':memory:') mkdirSync(dirname(target.path), { recursive: true });
    const sqlite = new (sqliteDriver())(target.path);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma(`busy_timeout = ${options.timeouts?.statementMs || 5000}`);
    sqlite.pragma('foreign_keys = ON');
    const lockWaits: WriteLockWaits = { count: 0, seconds: 0 };
    const statements = withStatementCache(sqlite, undefined, lockWaits);
    const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: statements }) });
    registerSqliteHandle(db, sqlite, statements);
    const readThread = target.path === ':memory:' ? null : new SqliteReadThread(target.path, options.timeouts?.statementMs || 5000);
    if (readThread) registerSqliteReadThread(db, readThread);
    // Opened on first use: the -shm file exists once a connection has used the WAL.
    let watch: SqliteCommitWatch | null = null;
    const commitWatch = () => {
      if (watch === null && target.path !== ':memory:') watch = SqliteCommitWatch.open(target.path);
      return watch;
    };
    const checkpoints =
      readThread && options.checkpointsOffLoop
        ? new SqliteCheckpoints(
            sqlite,
            () => commitWatch()?.walFrames() ?? noFrames,
            readThread,
            (step) => holdSqliteWrites(db, step),
          )
        : null;
    return {
      engine: 'sqlite',
      db,
      sqlite,
      commitWatch,
      poolUse: () => null,
      close: async () => {
        checkpoints?.stop();
        watch?.close();
        watch = null;
        await readThread?.close();
        await db.destroy();
      },
      stats: () => ({ engine: 'sqlite', writeLockWaits: lockWaits.count, writeLockWaitSeconds: lockWaits.seconds }),
    };
  }
  const size = options.poolSize ?? 10;
  const timeouts = options.timeouts;
  const pg = pgDriver();
  const pool = new pg.Pool({
    connectionString: target.url,
    max: size,
    fallback_application_name: 'community-admin',
    // jit off: PostgreSQL starts JIT compilation by a statement's estimated cost, and an API's
    // statements are short: EXPLAIN ANALYZE showed a frequent search word's query compiled on every
    // execution (docs/search.md). Measured at 1M posts: 247 ms median with it off, 270-330 ms with
    // it on earlier the same hour (a loaded machine: within the noise, no statement got slower).
    options: `-c jit=off${options.schema ? ` -c search_path=${options.schema}` : ''}`,
    ...(timeouts
      ? {
          // Opening a connection is bounded by connectMs (the client's own timer); waiting for a
          // free pooled one, longer: a burst of load is not an outage, and a connection comes free
          // within a statement's time.
          Client: clientConnectingWithin(pg, timeouts.connectMs),
          connectionTimeoutMillis: Math.max(timeouts.connectMs, timeouts.statementMs),
          keepAlive: true,
          keepAliveInitialDelayMillis: 10_000,
        }
      : {}),
    // statementMs 0: no statement timeout (the server's migrations).
    ...(timeouts?.statementMs
      ? { statement_timeout: timeouts.statementMs, query_timeout: timeouts.statementMs + queryTimeoutMarginMs }
      : {}),
    ...(options.idleInTransactionMs ? { idle_in_transaction_session_timeout: options.idleInTransactionMs } : {}),
  });
  // No client error may end the process: pg-pool listens to a client only while it is idle, so
  // each one gets a listener of its own as soon as it exists (its NamingClient then marks it
  // broken); the pool reports idle ones here.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  // Parameterised texts run as named prepared statements, parsed once per connection (pg-statements.ts).
  const naming = namingPool(pool);
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: naming }) });
  registerPostgresPool(db, naming);
  return {
    engine: 'postgres',
    db,
    sqlite: null,
    commitWatch: () => null,
    poolUse: () => ({ size, checkedOutSince: naming.checkedOutSince() }),
    close: async () => {
      // A connection black-holed by the network never answers its Terminate: do not wait for it.
      let timer: NodeJS.Timeout | undefined;
      const givenUp = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, closeGraceMs);
      });
      await Promise.race([db.destroy().catch(() => {}), givenUp]);
      clearTimeout(timer);
    },
    stats: () => ({ engine: 'postgres', connections: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: size }),
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

/** The probe in flight per database: concurrent readiness checks share one query. */
const probes = new WeakMap<Database, Promise<boolean>>();

/** True when the database answers a trivial query within `withinMs`; never waits longer. */
export function isDatabaseReachable(database: Database, withinMs = 800): Promise<boolean> {
  let probe = probes.get(database);
  if (!probe) {
    probe = sql`select 1`.execute(database.db).then(
      () => true,
      () => false,
    );
    probes.set(database, probe);
    const settled = probe;
    void probe.finally(() => {
      if (probes.get(database) === settled) probes.delete(database);
    });
  }
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), withinMs);
  });
  return Promise.race([probe, late]).finally(() => clearTimeout(timer));
}

/** True when the error is a unique-constraint violation on either engine. */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}
