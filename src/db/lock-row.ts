import type { Tx } from './database.js';

/** The tables whose rows a change locks before a read-modify-write, each by its home's queries. */
export type LockedTable = 'feeds' | 'posts';

/**
 * Takes one row's lock before a read-modify-write (a post's count step, a feed's member count or
 * rename): on PostgreSQL two instances applying two reactions to one post would otherwise both read
 * n and write n+1. A no-op update is the lock on both engines (SQLite has one writer at a time
 * anyway, and no FOR UPDATE).
 */
export async function lockRow(tx: Tx, table: LockedTable, communityId: string, id: string): Promise<void> {
  await tx
    .updateTable(table as LockedTable)
    .set((eb) => ({ id: eb.ref('id') }))
    .where('community_id', '=', communityId)
    .where('id', '=', id)
    .execute();
}
