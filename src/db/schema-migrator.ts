import { type DatabaseIntrospector, type Kysely, Migrator, type SchemaMetadata, sql, type TableMetadata } from 'kysely';
import type { Db } from './handles.js';
import { migrations } from './migrations/index.js';

/*
 * Kysely's Migrator asks the dialect's introspector whether its tables exist, and PostgreSQL's
 * introspector reads every table of every schema, calling pg_get_serial_sequence on each name: when
 * another schema of the same database is dropped meanwhile (parallel test files, benches, other
 * deployments sharing a database), that call fails with `schema "..." does not exist` and the
 * migration with it. On PostgreSQL the migrator is therefore given an introspector that reads the
 * catalog of the current schema only, with no function that resolves names.
 */

class CurrentSchemaIntrospector implements DatabaseIntrospector {
  constructor(private readonly db: Kysely<unknown>) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<{ name: string }>`select nspname as name from pg_catalog.pg_namespace`.execute(this.db);
    return rows;
  }

  async getTables(): Promise<TableMetadata[]> {
    const { rows } = await sql<{ name: string; schema: string; kind: string }>`
      select c.relname as name, n.nspname as schema, c.relkind as kind
      from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where n.nspname = current_schema() and c.relkind in ('r', 'p', 'v', 'm')`.execute(this.db);
    return rows.map((row) => ({ name: row.name, schema: row.schema, isView: row.kind === 'v' || row.kind === 'm', columns: [] }));
  }

  async getMetadata(): Promise<{ tables: TableMetadata[] }> {
    return { tables: await this.getTables() };
  }
}

/** The database handle as the migrator sees it: on PostgreSQL, with the current-schema introspector. */
function migratorHandle(handle: Db, engine: 'sqlite' | 'postgres'): Kysely<unknown> {
  const db = handle as unknown as Kysely<unknown>;
  if (engine !== 'postgres') return db;
  const introspection = new CurrentSchemaIntrospector(db);
  return new Proxy(db, {
    get(target, property) {
      if (property === 'introspection') return introspection;
      const value: unknown = Reflect.get(target, property, target);
      // Kysely's methods use private fields: they must run on the instance itself.
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** A migrator of the project's migrations for a database (its own schema on PostgreSQL). */
export async function migratorOf(database: { db: Db; engine: 'sqlite' | 'postgres' }): Promise<Migrator> {
  // Kysely looks for its own tables in every schema unless told which one: with several schemas in
  // one PostgreSQL database (parallel test files, benches), another schema's would pass for ours.
  const schemaRow =
    database.engine === 'postgres'
      ? (await sql<{ name: string }>`select current_schema() as name`.execute(database.db)).rows[0]
      : undefined;
  return new Migrator({
    db: migratorHandle(database.db, database.engine),
    provider: { getMigrations: async () => migrations },
    ...(schemaRow ? { migrationTableSchema: schemaRow.name } : {}),
  });
}
