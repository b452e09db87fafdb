import type { Db, Tx } from '../../../db/database.js';

/** Whether the community has a Slack bot connected (an award's direct message needs one); reads no secret. */
export async function hasBotConnection(db: Db | Tx, communityId: string): Promise<boolean> {
  const row = await db
    .selectFrom('chat_sync_connections')
    .select('community_id')
    .where('community_id', '=', communityId)
    .executeTakeFirst();
  return row !== undefined;
}
