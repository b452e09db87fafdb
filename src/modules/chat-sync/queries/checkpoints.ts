import type { Db, Tx } from '../../../db/database.js';
import type { EpochMicros } from '../../../shared/time.js';

/** Where a backfill stands in one listing (users, a channel's history): written with the page it follows. */
export interface Checkpoint {
  scope: string;
  cursor: string;
  done: boolean;
  items: number;
}

export async function selectCheckpoints(db: Db | Tx, communityId: string): Promise<Map<string, Checkpoint>> {
  const rows = await db
    .selectFrom('chat_sync_checkpoints')
    .select(['scope', 'cursor', 'done', 'items'])
    .where('community_id', '=', communityId)
    .execute();
  return new Map(rows.map((row) => [row.scope, { scope: row.scope, cursor: row.cursor, done: row.done === 1, items: Number(row.items) }]));
}

export async function saveCheckpoint(tx: Tx, communityId: string, checkpoint: Checkpoint, now: EpochMicros): Promise<void> {
  const row = {
    community_id: communityId,
    scope: checkpoint.scope,
    cursor: checkpoint.cursor,
    done: checkpoint.done ? (1 as const) : (0 as const),
    items: checkpoint.items,
    updated_at: now,
  };
  await tx
    .insertInto('chat_sync_checkpoints')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['community_id', 'scope']).doUpdateSet((eb) => ({
        cursor: eb.ref('excluded.cursor'),
        done: eb.ref('excluded.done'),
        items: eb.ref('excluded.items'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .execute();
}

/** A finished backfill forgets its checkpoints: the next run reads everything again (and writes only changes). */
export async function clearCheckpoints(db: Db | Tx, communityId: string): Promise<void> {
  await db.deleteFrom('chat_sync_checkpoints').where('community_id', '=', communityId).execute();
}

/** How many backfill scopes there are, and the sums of their done and total items (the metrics' gauges). */
export const backfillGauge = (db: Db) =>
  db
    .selectFrom('chat_sync_checkpoints')
    .select((eb) => [eb.fn.countAll().as('n'), eb.fn.sum('done').as('done'), eb.fn.sum('items').as('items')])
    .executeTakeFirstOrThrow();
