import type { Selectable } from 'kysely';
import { batchesOf } from '../../db/batches.js';
import type { Db, Tx } from '../../db/database.js';
import type { AwardAssignmentsTable, AwardNotificationsTable, AwardsTable } from '../../db/schema.js';

export type AwardRow = Selectable<AwardsTable>;
export type AwardAssignmentRow = Selectable<AwardAssignmentsTable>;

/** One award of the community, or undefined. */
export function selectAward(db: Db | Tx, communityId: string, id: string): Promise<AwardRow | undefined> {
  return db.selectFrom('awards').selectAll().where('community_id', '=', communityId).where('id', '=', id).executeTakeFirst();
}

/** The community's awards, oldest first, with how many members hold each. */
export function selectAwardsWithCounts(db: Db, communityId: string) {
  return db
    .selectFrom('awards as a')
    .leftJoin('award_assignments as s', (join) => join.onRef('s.community_id', '=', 'a.community_id').onRef('s.award_id', '=', 'a.id'))
    .select(['a.id', 'a.name', 'a.description', 'a.emoji', 'a.created_at'])
    .select((eb) => eb.fn.count<number>('s.profile_id').as('assigned_count'))
    .where('a.community_id', '=', communityId)
    .groupBy(['a.id', 'a.name', 'a.description', 'a.emoji', 'a.created_at'])
    .orderBy('a.created_at')
    .orderBy('a.id')
    .execute();
}

/** Inserts or replaces awards by id, in batches. */
export async function upsertAwards(tx: Tx, rows: readonly AwardRow[]): Promise<void> {
  for (const batch of batchesOf(rows)) {
    await tx
      .insertInto('awards')
      .values(batch)
      .onConflict((oc) =>
        oc.columns(['community_id', 'id']).doUpdateSet((eb) => ({
          name: eb.ref('excluded.name'),
          description: eb.ref('excluded.description'),
          emoji: eb.ref('excluded.emoji'),
          created_at: eb.ref('excluded.created_at'),
          updated_at: eb.ref('excluded.updated_at'),
        })),
      )
      .execute();
  }
}

/** Records an assignment unless the profile already holds the award; true when it is new. */
export async function insertAssignment(tx: Tx, row: AwardAssignmentRow): Promise<boolean> {
  const result = await tx
    .insertInto('award_assignments')
    .values(row)
    .onConflict((oc) => oc.columns(['community_id', 'award_id', 'profile_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/** Replaces the holders of an award with exactly these (the import: a record lists them all). */
export async function replaceAssignments(tx: Tx, communityId: string, awardId: string, rows: readonly AwardAssignmentRow[]): Promise<void> {
  await tx.deleteFrom('award_assignments').where('community_id', '=', communityId).where('award_id', '=', awardId).execute();
  for (const batch of batchesOf(rows)) await tx.insertInto('award_assignments').values(batch).execute();
}

/** Queues a direct message telling a recipient (in the assignment's transaction). */
export async function insertNotification(tx: Tx, row: AwardNotificationsTable): Promise<void> {
  await tx.insertInto('award_notifications').values(row).execute();
}

/** The profile's chat user id and preferred name, or undefined. */
export async function selectProfileForMessage(
  db: Db | Tx,
  communityId: string,
  profileId: string,
): Promise<{ chatUserId: string | null; name: string } | undefined> {
  const row = await db
    .selectFrom('profiles')
    .select(['chat_user_id', 'doc'])
    .where('community_id', '=', communityId)
    .where('id', '=', profileId)
    .executeTakeFirst();
  if (!row) return undefined;
  const doc = JSON.parse(row.doc) as { preferred_name?: string; full_name?: string };
  return { chatUserId: row.chat_user_id === '' ? null : row.chat_user_id, name: doc.preferred_name || doc.full_name || 'someone' };
}

/** Whether the community has a Slack bot connected (direct messages need one). */
export async function hasBotConnection(db: Db | Tx, communityId: string): Promise<boolean> {
  const row = await db
    .selectFrom('chat_sync_connections')
    .select('community_id')
    .where('community_id', '=', communityId)
    .executeTakeFirst();
  return row !== undefined;
}
