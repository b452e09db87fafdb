import type { Updateable } from 'kysely';
import type { Db } from '../../../db/database.js';
import type { ChatSyncStatusTable } from '../../../db/schema.js';

/** Every statement on `chat_sync_status` (what was last learnt of a community's Slack connection). */

export function selectSyncStatus(db: Db, communityId: string) {
  return db.selectFrom('chat_sync_status').selectAll().where('community_id', '=', communityId).executeTakeFirst();
}

/** Stores what a check or a backfill learnt; the columns it does not name keep their values. */
export async function saveSyncStatus(
  db: Db,
  communityId: string,
  change: Omit<Updateable<ChatSyncStatusTable>, 'community_id'>,
): Promise<void> {
  await db
    .insertInto('chat_sync_status')
    .values({ community_id: communityId, ...change })
    .onConflict((oc) => oc.column('community_id').doUpdateSet(change))
    .execute();
}
