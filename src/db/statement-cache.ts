import type SqliteDatabase from 'better-sqlite3';
import type { SqliteDatabase as KyselySqliteDatabase } from 'kysely';

/** Enough for every distinct statement the service runs (IN lists of different lengths included). */
const defaultCapacity = 1000;

/** Run instead of a rollback when SQLite has already rolled the transaction back: a statement that does nothing. */
const nothingToRollBack = 'select 0 where 0';

/** Writes (BEGIN IMMEDIATE, or a write outside a transaction) that waited for another connection's write lock, and the time they waited. */
export interface WriteLockWaits {
  count: number;
  seconds: number;
}

/** A write statement faster than this took a free lock; slower, it waited (busy_timeout) for another writer. */
const lockWaitThresholdMs = 1;

/**
 * A statement that takes the write lock (BEGIN IMMEDIATE, or a write outside a transaction), timed:
 * better-sqlite3 runs it synchronously, waiting (up to busy_timeout) while another connection (the
 * CLI, a second server) holds the lock. Reads never wait for it (WAL), so they are not wrapped.
 */
function timedWrite(sqlite: SqliteDatabase.Database, statement: SqliteDatabase.Statement, waits: WriteLockWaits): SqliteDatabase.Statement {
  const run = statement.run.bind(statement);
  const timedRun = (...parameters: unknown[]) => {
    // Inside a transaction the lock is held already (COMMIT, the transaction's own writes): not timed.
    if (sqlite.inTransaction) return run(...parameters);
    const started = performance.now();
    try {
      return run(...parameters);
    } finally {
      const waitedMs = performance.now() - started;
      if (waitedMs >= lockWaitThresholdMs) {
        waits.count++;
        waits.seconds += waitedMs / 1000;
      }
    }
  };
  // A native statement's getters (reader, busy) need the statement itself as their receiver.
  return new Proxy(statement, {
    get(target, property) {
      if (property === 'run') return timedRun;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** What Kysely's SQLite dialect needs of a database, with better-sqlite3's own statements. */
export interface StatementCache extends KyselySqliteDatabase {
  prepare(sql: string): SqliteDatabase.Statement;
}

/**
 * The better-sqlite3 handle as Kysely sees it, with prepared statements reused by SQL text.
 * Kysely prepares every query afresh; on hot reads that costs more than running it (measured
 * in docs/performance.md). Safe because better-sqlite3 runs a statement to completion
 * synchronously and Kysely holds its single connection for the length of a stream, so no
 * statement is ever in use twice at once. Least recently used statements are dropped first.
 */
export function withStatementCache(
  sqlite: SqliteDatabase.Database,
  capacity = defaultCapacity,
  lockWaits: WriteLockWaits = { count: 0, seconds: 0 },
): StatementCache {
  const statements = new Map<string, SqliteDatabase.Statement>();
  return {
    prepare(text: string) {
      // Kysely opens every transaction with a plain (deferred) BEGIN. Ours are all writes (the write
      // path and the migrations): a deferred one that reads first and then writes fails at once with
      // SQLITE_BUSY when another process (the CLI, a second server) committed in between, because its
      // snapshot is stale and SQLite cannot wait that out. BEGIN IMMEDIATE takes the write lock at the
      // start, where busy_timeout does wait.
      let sql = text === 'begin' ? 'begin immediate' : text;
      // SQLite rolls a transaction back by itself on some errors (a full disk, an I/O error, a
      // lock it gave up on); Kysely's rollback would then fail, and its error would hide the cause
      // (the client would get a 500 instead of a 503 database_unavailable).
      if (sql === 'rollback' && !sqlite.inTransaction) sql = nothingToRollBack;
      let statement = statements.get(sql);
      if (statement) {
        // Re-inserting moves it to the end: Map order is the recency order.
        statements.delete(sql);
      } else {
        const prepared = sqlite.prepare(sql);
        statement = prepared.reader ? prepared : timedWrite(sqlite, prepared, lockWaits);
        if (statements.size >= capacity) {
          const oldest = statements.keys().next().value;
          if (oldest !== undefined) statements.delete(oldest);
        }
      }
      statements.set(sql, statement);
      return statement;
    },
    close() {
      statements.clear();
      sqlite.close();
    },
  };
}
