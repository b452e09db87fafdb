import { type RawBuilder, type SqlBool, sql } from 'kysely';
import { addMillis, type DurationMs, type EpochMillis } from '../shared/time.js';
import type { Database } from './database.js';

/** The queues drained by leases (each by its home's queries): a row is claimed for a while, counting an attempt. */
export type LeasedQueueTable = 'chat_event_queue' | 'award_notifications' | 'chat_sync_jobs';

/** How one queue's rows are named, ordered and found waiting. */
export interface LeasedQueue<R extends { attempts: number }> {
  /** The columns naming one row. */
  key: readonly string[];
  /** The order rows are claimed in, oldest first (the last column breaks ties). */
  order: readonly string[];
  /** The columns a claim returns: R's. */
  columns: readonly (keyof R & string)[];
  /** Besides an expired lease, what makes a row wait at `now`. */
  waiting: (now: EpochMillis) => RawBuilder<SqlBool>;
}

const refs = (columns: readonly string[]) => sql.join(columns.map((column) => sql.ref(column)));

/**
 * Claims up to `limit` waiting rows of a queue, oldest first, for `leaseMs`, counting the attempt
 * (the rows come back with their new count). On PostgreSQL one statement picks and leases them with
 * FOR UPDATE SKIP LOCKED, so instances claiming at once take different rows; on SQLite (one writer
 * at a time) each row is leased by a conditional update that only one claimer can win.
 */
export async function claimLeased<R extends { attempts: number }>(
  database: Database,
  table: LeasedQueueTable,
  queue: LeasedQueue<R>,
  now: EpochMillis,
  leaseMs: DurationMs,
  limit: number,
): Promise<R[]> {
  const { db } = database;
  const until = addMillis(now, leaseMs);
  const orderBy = refs(queue.order);
  if (database.engine === 'postgres') {
    const result = await sql<Record<string, unknown>>`
      update ${sql.table(table)} set lease_until = ${until}, attempts = attempts + 1
      where (${refs(queue.key)}) in (
        select ${refs(queue.key)} from ${sql.table(table)}
        where ${queue.waiting(now)} and lease_until < ${now}
        order by ${orderBy}
        limit ${limit}
        for update skip locked)
      returning ${refs([...new Set([...queue.columns, ...queue.order])])}`.execute(db);
    // RETURNING follows no ORDER BY: put the batch back in the order of the queue.
    return result.rows.sort((a, b) => compareBy(queue.order, a, b)).map((row) => pick(queue.columns, row) as R);
  }
  const rows = await db
    .selectFrom(table as LeasedQueueTable)
    .select(queue.columns.map((column) => sql.ref(column).as(column)))
    .where(queue.waiting(now))
    .where(sql<SqlBool>`lease_until < ${now}`)
    .orderBy(orderBy)
    .limit(limit)
    .execute();
  const claimed: R[] = [];
  for (const row of rows as unknown as R[]) {
    const result = await db
      .updateTable(table as LeasedQueueTable)
      .set({ lease_until: until, attempts: sql`attempts + 1` })
      .where(sql<SqlBool>`(${refs(queue.key)}) = (${sql.join(queue.key.map((column) => (row as Record<string, unknown>)[column]))})`)
      .where(queue.waiting(now))
      .where(sql<SqlBool>`lease_until < ${now}`)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 1) claimed.push({ ...row, attempts: row.attempts + 1 });
  }
  return claimed;
}

/** Compares two rows by these columns (numbers as numbers, texts bytewise). */
function compareBy(columns: readonly string[], a: Record<string, unknown>, b: Record<string, unknown>): number {
  for (const column of columns) {
    const x = a[column];
    const y = b[column];
    if (typeof x === 'string' && typeof y === 'string') {
      if (x !== y) return x < y ? -1 : 1;
    } else if (Number(x) !== Number(y)) return Number(x) - Number(y);
  }
  return 0;
}

const pick = (columns: readonly string[], row: Record<string, unknown>) =>
  Object.fromEntries(columns.map((column) => [column, row[column]]));
