import type { Selectable } from 'kysely';
import type { Db, Tx } from '../../db/database.js';
import type { ChatConnectionsTable } from '../../db/schema.js';

export type ChatConnectionRow = Selectable<ChatConnectionsTable>;

/** The community's stored chat admin connection, or undefined when it has none. */
export async function selectChatConnection(db: Db | Tx, communityId: string): Promise<ChatConnectionRow | undefined> {
  return db
    .selectFrom('chat_connections')
    .select(['community_id', 'token', 'team_id', 'connected_at'])
    .where('community_id', '=', communityId)
    .executeTakeFirst();
}

/** Stores the community's chat admin connection, replacing the previous one. */
export async function upsertChatConnection(db: Db | Tx, row: ChatConnectionRow): Promise<void> {
  await db
    .insertInto('chat_connections')
    .values(row)
    .onConflict((oc) =>
      oc.column('community_id').doUpdateSet((eb) => ({
        token: eb.ref('excluded.token'),
        team_id: eb.ref('excluded.team_id'),
        connected_at: eb.ref('excluded.connected_at'),
      })),
    )
    .execute();
}

/** Every community's sealed admin token (re-sealing with a new SECRETS_KEY). */
export function selectChatConnectionTokens(db: Db): Promise<Pick<ChatConnectionRow, 'community_id' | 'token'>[]> {
  return db.selectFrom('chat_connections').select(['community_id', 'token']).execute();
}

/** Replaces a community's sealed admin token (the same token sealed anew). */
export async function updateChatConnectionToken(db: Db, communityId: string, token: string): Promise<void> {
  await db.updateTable('chat_connections').set({ token }).where('community_id', '=', communityId).execute();
}
