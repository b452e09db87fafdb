import { sql } from 'kysely';
import type { Database, Db } from '../db/database.js';

/**
 * Runs `read` on one consistent, read-only snapshot of the database (an export reads every
 * section of a community as of one instant, so that every reference inside the file resolves).
 * Lives beside the write path because it is the other place that opens a transaction; it hands
 * out a `Db`, never a `Tx`, so no writer can be reached through it, and the engine refuses writes:
 * PostgreSQL runs it REPEATABLE READ READ ONLY, SQLite with `query_only` for its duration. On SQLite
 * the transaction is DEFERRED on purpose (Kysely's begin is IMMEDIATE here, which would take the
 * write lock and stop a running server's writers for the whole export): in WAL mode a read
 * transaction sees one snapshot and blocks no one. The one connection is held throughout, so no
 * other query of this process runs inside it.
 */
export async function readSnapshot<T>(database: Database, read: (db: Db) => Promise<T>): Promise<T> {
  if (database.engine === 'postgres') {
    return database.db
      .transaction()
      .setIsolationLevel('repeatable read')
      .setAccessMode('read only')
      .execute((tx) => read(tx));
  }
  return database.db.connection().execute(async (connection) => {
    await sql`begin deferred`.execute(connection);
    await sql`pragma query_only = on`.execute(connection);
    try {
      return await read(connection);
    } finally {
      await sql`pragma query_only = off`.execute(connection);
      await sql`rollback`.execute(connection);
    }
  });
}
