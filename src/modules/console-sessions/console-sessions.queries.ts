import type { Selectable } from 'kysely';
import type { Db, Tx } from '../../db/database.js';
import type { ConsoleLinksTable } from '../../db/schema.js';
import type { EpochMillis } from '../../shared/time.js';

export type ConsoleLinkRow = Selectable<ConsoleLinksTable>;

/** Inserts a link (its token's hash only). */
export async function insertConsoleLink(db: Db, row: ConsoleLinkRow): Promise<void> {
  await db.insertInto('console_links').values(row).execute();
}

/** Deletes the links that stopped working by `before` (used or not): a deleted link is refused like a used one. */
export async function deleteConsoleLinksExpiredBy(db: Db, before: EpochMillis): Promise<void> {
  await db.deleteFrom('console_links').where('expires_at', '<=', before).execute();
}

/** One link by its token's hash. */
export async function selectConsoleLink(db: Db, tokenHash: string): Promise<ConsoleLinkRow | undefined> {
  return db.selectFrom('console_links').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/**
 * Marks a link used if it is unused and unexpired at `now`; true when this call did. One
 * conditional statement: of two concurrent uses, the second finds `used_at` set (PostgreSQL
 * re-reads the row once the first commits; SQLite runs one write at a time), so exactly one wins.
 */
export async function useConsoleLink(tx: Tx, tokenHash: string, now: EpochMillis): Promise<boolean> {
  const result = await tx
    .updateTable('console_links')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
