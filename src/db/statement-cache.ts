import type SqliteDatabase from 'better-sqlite3';
import type { SqliteDatabase as KyselySqliteDatabase } from 'kysely';

/** Enough for every distinct statement the service runs (IN lists of different lengths included). */
const defaultCapacity = 1000;

/** Run instead of a rollback when SQLite has already rolled the transaction back: a statement that does nothing. */
const nothingToRollBack = 'select 0 where 0';

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
export function withStatementCache(sqlite: SqliteDatabase.Database, capacity = defaultCapacity): StatementCache {
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
        statement = sqlite.prepare(sql);
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
