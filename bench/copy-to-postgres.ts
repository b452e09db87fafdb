import pg from 'pg';
import { sqliteDriver } from '../src/db/sqlite-driver.js';

/** Rows per INSERT: PostgreSQL takes at most 65,535 parameters per statement. */
const maxParameters = 60_000;
/** The migrator's own tables: the PostgreSQL schema was migrated already. */
const skipped = new Set(['kysely_migration', 'kysely_migration_lock']);

/**
 * Copies every row of a SQLite dataset into a PostgreSQL schema that the server's migrations have
 * just created (empty, same tables and columns). The generator is deterministic, so the copy holds
 * exactly the rows a PostgreSQL build would write; it takes minutes where the build through the
 * import takes over an hour at 1M events. Rows go in the SQLite file's order (its insert order),
 * foreign keys unchecked during the copy (session_replication_role = replica).
 */
export async function copySqliteToPostgres(
  sqlitePath: string,
  postgresUrl: string,
  progress: (text: string) => void,
): Promise<Record<string, number>> {
  const sqlite = new (sqliteDriver())(sqlitePath, { readonly: true });
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  const seconds: Record<string, number> = {};
  try {
    await client.query('set session_replication_role = replica');
    const tables = sqlite
      .prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by rowid")
      .pluck()
      .all() as string[];
    for (const table of tables.filter((name) => !skipped.has(name))) {
      const started = performance.now();
      const columns = (sqlite.prepare(`pragma table_info("${table}")`).all() as { name: string }[]).map((column) => column.name);
      const perInsert = Math.max(1, Math.floor(maxParameters / columns.length));
      const quoted = columns.map((column) => `"${column}"`).join(', ');
      let batch: unknown[][] = [];
      let copied = 0;
      const flush = async () => {
        if (batch.length === 0) return;
        const values: unknown[] = [];
        const tuples = batch.map((row) => `(${row.map((value) => `$${values.push(value)}`).join(', ')})`);
        await client.query(`insert into "${table}" (${quoted}) values ${tuples.join(', ')}`, values);
        copied += batch.length;
        batch = [];
        progress(`${table}: ${copied} rows`);
      };
      for (const row of sqlite.prepare(`select ${quoted} from "${table}"`).raw().iterate() as IterableIterator<unknown[]>) {
        batch.push(row);
        if (batch.length >= perInsert) await flush();
      }
      await flush();
      seconds[table] = (performance.now() - started) / 1000;
    }
  } finally {
    await client.end();
    sqlite.close();
  }
  return seconds;
}
