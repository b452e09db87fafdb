import { type SelectQueryBuilder, sql } from 'kysely';
import type { Db, Engine } from './database.js';
import type { DB } from './schema.js';

/** Rows read per round trip: bounds the export's memory whatever the size of the community. */
const exportBatchSize = 500;

/** The tables read in order of their `id` (the export's), each by its home's queries. */
export type OrderedTable = 'files' | 'profiles' | 'members' | 'groups' | 'feeds' | 'posts' | 'calendar_events' | 'awards';

type Select<T extends OrderedTable, O> = SelectQueryBuilder<DB, T, O>;

let cursorCount = 0;

/**
 * The rows of one community's table in byte order of `id`, a batch at a time. Byte order (not
 * the database's collation) is the only order both engines agree on for mixed-case ids, so an
 * export is the same file on either engine. SQLite compares text bytewise and walks the primary
 * key; PostgreSQL sorts once behind a server-side cursor (`COLLATE "C"`), which keeps memory
 * bounded on both sides and reads the transaction's snapshot.
 */
export async function* orderedRows<T extends OrderedTable, O extends { id: string }>(
  tx: Db,
  engine: Engine,
  table: T,
  communityId: string,
  select: (query: Select<T, object>) => Select<T, O>,
): AsyncGenerator<O[]> {
  const base = () => select(tx.selectFrom(table as OrderedTable).where('community_id', '=', communityId) as unknown as Select<T, object>);
  if (engine === 'sqlite') {
    let after: string | null = null;
    for (;;) {
      const query = after === null ? base() : base().where(sql.ref('id'), '>', after);
      const rows = (await query.orderBy(sql.ref('id')).limit(exportBatchSize).execute()) as O[];
      if (rows.length === 0) return;
      yield rows;
      if (rows.length < exportBatchSize) return;
      after = (rows[rows.length - 1] as O).id;
    }
  }
  const name = sql.id(`export_rows_${++cursorCount}`);
  const ordered = base().orderBy(sql`id collate "C"`);
  await sql`declare ${name} no scroll cursor for ${ordered}`.execute(tx);
  try {
    for (;;) {
      const { rows } = await sql<O>`fetch forward ${sql.lit(exportBatchSize)} from ${name}`.execute(tx);
      if (rows.length === 0) return;
      yield rows;
      if (rows.length < exportBatchSize) return;
    }
  } finally {
    await sql`close ${name}`.execute(tx);
  }
}

/** The ids split into lists small enough for one `in (...)`. */
export function* idChunks(ids: readonly string[], size = exportBatchSize): Generator<string[]> {
  for (let i = 0; i < ids.length; i += size) yield ids.slice(i, i + size);
}
