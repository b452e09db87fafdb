import type SqliteDatabase from 'better-sqlite3';
import {
  type Compilable,
  type CompiledQuery,
  createQueryId,
  type DialectAdapter,
  type InferResult,
  PostgresAdapter,
  type PostgresPool,
} from 'kysely';
import { andThen } from '../shared/maybe-async.js';
import type { Db, Tx } from './handles.js';
import { statementNames } from './pg-statements.js';
import type { SqliteReadThread } from './sqlite-read-thread.js';
import type { StatementCache } from './statement-cache.js';

/** Values a prepared query is run with: scalars, or arrays (an `in` list, one slot per element). */
type ParamValue = string | number | null | readonly (string | number)[];
type Params = Record<string, ParamValue>;

/** Where a compiled parameter's value comes from: a named parameter (an element of it), or a constant of the query. */
type Slot = { name: string; index: number | undefined } | { constant: unknown };

interface Compiled {
  sql: string;
  query: CompiledQuery['query'];
  slots: Slot[];
}

interface BoundCall {
  compiled: Compiled;
  values: unknown[];
  statement: SqliteDatabase.Statement | null;
  /** The pool to run it on directly (PostgreSQL, outside a transaction), else null. */
  pool: PostgresPool | null;
}

interface SqliteHandle {
  sqlite: SqliteDatabase.Database;
  /** The statements Kysely itself reuses (statement-cache.ts): one prepared statement per SQL text. */
  statements: StatementCache;
  /** True for the handle of a transaction: it runs inside the open transaction, which is its own. */
  transaction: boolean;
  /** Set while the database's writes are held (holdSqliteWrites); one object for the database and its transactions. */
  writeHold: { held: boolean };
}

/**
 * The better-sqlite3 handle behind a Kysely instance opened by openDatabase: reads outside
 * transactions skip Kysely's connection queue, and so do the statements of a transaction that the
 * write path registered (registerSqliteTransaction). Any other Kysely instance is absent here and
 * goes through Kysely.
 */
const sqliteHandles = new WeakMap<Db | Tx, SqliteHandle>();

/** Called by openDatabase for SQLite databases. */
export function registerSqliteHandle(db: Db, sqlite: SqliteDatabase.Database, statements: StatementCache): void {
  sqliteHandles.set(db, { sqlite, statements, transaction: false, writeHold: { held: false } });
}

/**
 * Runs `step` while no write of `db` can start: it holds Kysely's one SQLite connection (so
 * transactions queue without blocking the event loop), and the writes that skip Kysely (a prepared
 * write outside a transaction: `bind` gives them no statement) go through it meanwhile, so they queue too. For a step
 * that takes SQLite's write lock on another connection (the WAL's start over,
 * sqlite-checkpoints.ts): a write on the handle would wait for that lock in SQLite's busy handler,
 * which sleeps on the event loop.
 */
export async function holdSqliteWrites<T>(db: Db, step: () => Promise<T>): Promise<T> {
  const hold = sqliteHandles.get(db)?.writeHold;
  return db.connection().execute(async () => {
    if (hold) hold.held = true;
    try {
      return await step();
    } finally {
      if (hold) hold.held = false;
    }
  });
}

/**
 * Lets the compiled statements of `tx`, a transaction of `db`, run straight on the SQLite handle.
 * Safe because SQLite has one connection: while the transaction is open Kysely hands that connection
 * to no one else (reads of other requests see `inTransaction` and queue behind it), so a statement
 * run on the handle now runs inside this transaction and sees its writes. Saves Kysely's connection
 * round (15-20 µs) on each of a write's reads; does nothing on PostgreSQL.
 */
export function registerSqliteTransaction(db: Db, tx: Tx): void {
  const handle = sqliteHandles.get(db);
  if (handle) sqliteHandles.set(tx, { ...handle, transaction: true });
}

/** The read thread of a SQLite file database opened by openDatabase (allOffLoop). */
const sqliteReadThreads = new WeakMap<Db | Tx, SqliteReadThread>();

/** Called by openDatabase for SQLite databases in a file. */
export function registerSqliteReadThread(db: Db, thread: SqliteReadThread): void {
  sqliteReadThreads.set(db, thread);
}

/**
 * The pool behind a Kysely instance opened by openDatabase on PostgreSQL. A compiled query outside
 * a transaction runs on it directly: a pooled connection, the statement (named: pg-statements.ts)
 * and the release, without Kysely's executor, connection provider and result transformation around
 * it (docs/performance.md measured that layer at about a tenth of an uncached page's CPU). A
 * transaction's queries go through Kysely: they must run on the transaction's connection.
 */
const postgresPools = new WeakMap<Db | Tx, PostgresPool>();

/** Called by openDatabase for PostgreSQL databases, with the pool Kysely's dialect was given. */
export function registerPostgresPool(db: Db, pool: PostgresPool): void {
  postgresPools.set(db, pool);
}

/** A value no caller passes (NUL is refused at the edge), so that it can only be a placeholder. */
const placeholder = (name: string, index?: number): string => `\u0000prepared:${name}${index === undefined ? '' : `[${index}]`}\u0000`;

/** How a prepared query binds its array parameters. */
export interface PreparedQueryOptions {
  /**
   * Each array is bound as one value (a PostgreSQL array, for `= any(${ids}::text[])`) instead of
   * one parameter per element: one SQL text, hence one named statement, for every length. For
   * PostgreSQL-only SQL: better-sqlite3 binds no arrays.
   */
  arraysAsValues?: boolean;
}

/** The shape of a call: arrays compile to one `?` per element, so their lengths are part of the SQL. */
function shapeOf(params: Params, options: PreparedQueryOptions): string {
  if (options.arraysAsValues) return '';
  let shape = '';
  for (const name in params) {
    const value = params[name];
    if (Array.isArray(value)) shape += `${name}:${value.length};`;
  }
  return shape;
}

/**
 * A query built with Kysely once per shape and run many times. Building and compiling a Kysely
 * query costs 20 to 40 µs per call, several times what SQLite needs for a point read (about 6 µs,
 * docs/performance.md), so the reads that every request makes are compiled once: the builder is
 * given placeholders in place of the parameters, the compiled SQL remembers where each value goes,
 * and a run only fills the values in. Queries stay written (and typed) with Kysely, and the same
 * builder serves both engines. On SQLite a run outside a transaction goes straight to a prepared
 * statement, and so does a run in a transaction of the write path; in other transactions, and on
 * PostgreSQL, the compiled SQL goes through Kysely, where on PostgreSQL it runs as a named prepared
 * statement of each connection (pg-statements.ts).
 *
 * The builder must use the parameters only as values (never to choose columns or the query's shape).
 */
export class PreparedQuery<P extends Params, Q extends Compilable<unknown>> {
  private readonly compiled = new WeakMap<DialectAdapter, Map<string, Compiled>>();

  constructor(
    private readonly build: (db: Db | Tx, params: P) => Q,
    private readonly options: PreparedQueryOptions = {},
  ) {}

  /** Every row, as Kysely's execute() would return them. */
  async all(db: Db | Tx, params: P): Promise<InferResult<Q>> {
    return this.allNow(db, params);
  }

  /**
   * Every row, read off the event loop where the database allows it: on a SQLite file outside a
   * transaction, by its read thread (sqlite-read-thread.ts), for a read long enough to hold up every
   * other request (a heavy search). Elsewhere as `all` (PostgreSQL does not run on the event loop).
   */
  async allOffLoop(db: Db | Tx, params: P): Promise<InferResult<Q>> {
    const thread = sqliteReadThreads.get(db);
    if (!thread) return this.all(db, params);
    const call = this.bind(db, params);
    if (!call.statement) return this.all(db, params);
    return (await thread.all(call.compiled.sql, call.values)) as InferResult<Q>;
  }

  /** The first row, or undefined. */
  async first(db: Db | Tx, params: P): Promise<InferResult<Q>[number] | undefined> {
    return (await this.all(db, params))[0];
  }

  /**
   * Every row, synchronously where the read needs no wait (SQLite outside a transaction), else a
   * promise: for reads on every request (the data version), where a promise per call shows.
   */
  allNow(db: Db | Tx, params: P): InferResult<Q> | Promise<InferResult<Q>> {
    const call = this.bind(db, params);
    if (call.statement) return call.statement.all(...call.values) as InferResult<Q>;
    if (call.pool) return onPool(call.pool, call).then((result) => result.rows as InferResult<Q>);
    return this.throughKysely(db, call).then((result) => result.rows as InferResult<Q>);
  }

  /** The first row, or undefined; synchronously where allNow is. */
  firstNow(db: Db | Tx, params: P): InferResult<Q>[number] | undefined | Promise<InferResult<Q>[number] | undefined> {
    return andThen(this.allNow(db, params), (rows) => rows[0]);
  }

  /**
   * Runs a compiled write (insert, update, delete) and returns how many rows it changed. On SQLite
   * outside a transaction it is one synchronous statement, as atomic as Kysely's own auto-commit;
   * inside one it waits for Kysely's connection like any query.
   */
  async execute(db: Db | Tx, params: P): Promise<number> {
    return this.executeNow(db, params);
  }

  /**
   * As execute, synchronously where allNow is: for a statement of every write (the activity
   * record's), where a promise per statement shows.
   */
  executeNow(db: Db | Tx, params: P): number | Promise<number> {
    const call = this.bind(db, params);
    if (call.statement) return call.statement.run(...call.values).changes;
    if (call.pool) return onPool(call.pool, call).then((result) => Number(result.rowCount ?? 0));
    return this.throughKysely(db, call).then((result) => Number(result.numAffectedRows ?? 0));
  }

  /** The compiled SQL with its values, and the prepared statement to run it on when it may skip Kysely. */
  private bind(db: Db | Tx, params: P): BoundCall {
    const compiled = this.compile(db, params);
    const values = compiled.slots.map((slot) => slotValue(slot, params));
    const handle = sqliteHandles.get(db);
    let statement = handle && handle.transaction === handle.sqlite.inTransaction ? handle.statements.prepare(compiled.sql) : null;
    // While the writes are held (holdSqliteWrites) a write on the handle waits in Kysely's queue instead.
    if (statement && handle?.writeHold.held && !statement.readonly) statement = null;
    return { compiled, values, statement, pool: postgresPools.get(db) ?? null };
  }

  private throughKysely(db: Db | Tx, { compiled, values }: BoundCall) {
    return db.executeQuery({ sql: compiled.sql, query: compiled.query, parameters: values, queryId: createQueryId() });
  }

  private compile(db: Db | Tx, params: P): Compiled {
    const adapter = db.getExecutor().adapter;
    let byShape = this.compiled.get(adapter);
    if (!byShape) {
      byShape = new Map();
      this.compiled.set(adapter, byShape);
    }
    const shape = shapeOf(params, this.options);
    let compiled = byShape.get(shape);
    if (!compiled) {
      const placeholders: Params = {};
      const slots = new Map<unknown, Slot>();
      for (const name in params) {
        const value = params[name];
        if (Array.isArray(value) && !this.options.arraysAsValues) {
          placeholders[name] = value.map((_, index) => {
            const text = placeholder(name, index);
            slots.set(text, { name, index });
            return text;
          });
        } else {
          const text = placeholder(name);
          slots.set(text, { name, index: undefined });
          placeholders[name] = text;
        }
      }
      const query = this.build(db, placeholders as P).compile();
      compiled = { sql: query.sql, query: query.query, slots: query.parameters.map((value) => slots.get(value) ?? { constant: value }) };
      byShape.set(shape, compiled);
      // On PostgreSQL the text is a named statement from its first run (pg-statements.ts).
      if (adapter instanceof PostgresAdapter) statementNames.register(compiled.sql);
    }
    return compiled;
  }
}

/** Runs a compiled query on a connection of the pool, released (to the pool) whatever happens. */
async function onPool(pool: PostgresPool, { compiled, values }: BoundCall) {
  const client = await pool.connect();
  try {
    return await client.query(compiled.sql, values);
  } finally {
    client.release();
  }
}

function slotValue(slot: Slot, params: Params): unknown {
  if ('constant' in slot) return slot.constant;
  const value = params[slot.name];
  if (slot.index === undefined) return value;
  return (value as readonly unknown[])[slot.index];
}

/**
 * A compiled write of community data: built on, and run only with, a transaction of the write path
 * (`tx: Tx`, which is what test/architecture/write-path.test.ts checks writes are run on).
 */
export function preparedWrite<P extends Params, Q extends Compilable<unknown>>(
  build: (tx: Tx, params: P) => Q,
): { execute: (tx: Tx, params: P) => Promise<number> } {
  // Sound: execute takes only a Tx, and the builder is called with the handle it is run on.
  const query = new PreparedQuery(build as (db: Db | Tx, params: P) => Q);
  return { execute: (tx, params) => query.execute(tx, params) };
}

/** Defines a prepared query (see PreparedQuery). */
export const preparedQuery = <P extends Params, Q extends Compilable<unknown>>(
  build: (db: Db | Tx, params: P) => Q,
  options?: PreparedQueryOptions,
): PreparedQuery<P, Q> => new PreparedQuery(build, options);

/**
 * Whether a page query should read its ids first and then fetch only the page's rows. On PostgreSQL
 * an OFFSET page reads every skipped row from the heap (an Index Scan); the ids alone come from an
 * index-only scan, but fetching the page's rows by primary key then costs an index descent each.
 * Measured on 100k events and posts (docs/performance.md): page 3 of 20 is faster the plain way
 * (71 buffers, 0.27-0.31 ms against 92 buffers, 0.45 ms for events), page 51 the deferred way
 * (1,047 buffers, 1.4-5 ms against 108 buffers, 0.85 ms); they break even at about 250 rows read.
 * SQLite skips OFFSET rows before it reads a row's table columns (deferred seeks on the covering
 * index), so it keeps the plain query.
 */
export function isDeepPage(db: Db | Tx, limit: number, offset: number): boolean {
  return offset + limit >= deepPageRows && db.getExecutor().adapter instanceof PostgresAdapter;
}

/** Rows read (skipped and shown) from which a PostgreSQL page reads its ids first. */
export const deepPageRows = 250;
