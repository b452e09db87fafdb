import type { Insertable } from 'kysely';
import type { Db, Tx } from '../../../db/database.js';
import { preparedQuery } from '../../../db/prepared-query.js';
import type { ChatSyncConnectionsTable } from '../../../db/schema.js';

const columns = [
  'community_id',
  'team_id',
  'team_url',
  'api_app_id',
  'bot_user_id',
  'bot_token',
  'signing_secret',
  'connected_at',
] as const;

// Compiled once: these run on every Events API delivery and every event the worker applies.
const connectionOfCommunity = preparedQuery((db, p: { communityId: string }) =>
  db.selectFrom('chat_sync_connections').select(columns).where('community_id', '=', p.communityId),
);
const connectionOfTeam = preparedQuery((db, p: { teamId: string }) =>
  db.selectFrom('chat_sync_connections').select(columns).where('team_id', '=', p.teamId),
);

/** The stored (sealed) connection of a community, or undefined. */
export async function selectConnectionRowOfCommunity(db: Db | Tx, communityId: string): Promise<ChatSyncConnectionsTable | undefined> {
  return connectionOfCommunity.first(db, { communityId });
}

/** The stored (sealed) connection of a workspace, or undefined. */
export async function selectConnectionRowOfTeam(db: Db | Tx, teamId: string): Promise<ChatSyncConnectionsTable | undefined> {
  return connectionOfTeam.first(db, { teamId });
}

/** The community other than `communityId` that holds the workspace's connection, if any. */
export async function selectOtherHolderOfTeam(db: Db, teamId: string, communityId: string): Promise<{ community_id: string } | undefined> {
  return db
    .selectFrom('chat_sync_connections')
    .select('community_id')
    .where('team_id', '=', teamId)
    .where('community_id', '<>', communityId)
    .executeTakeFirst();
}

/** Stores a community's connection (one per community), replacing the one it had. */
export async function upsertSyncConnectionRow(db: Db, row: Insertable<ChatSyncConnectionsTable>): Promise<void> {
  await db
    .insertInto('chat_sync_connections')
    .values(row)
    .onConflict((oc) =>
      oc.column('community_id').doUpdateSet((eb) => ({
        team_id: eb.ref('excluded.team_id'),
        team_url: eb.ref('excluded.team_url'),
        api_app_id: eb.ref('excluded.api_app_id'),
        bot_user_id: eb.ref('excluded.bot_user_id'),
        bot_token: eb.ref('excluded.bot_token'),
        signing_secret: eb.ref('excluded.signing_secret'),
        connected_at: eb.ref('excluded.connected_at'),
      })),
    )
    .execute();
}

/** Every connection's sealed secrets (key rotation). */
export async function selectSealedSyncSecrets(db: Db): Promise<{ community_id: string; bot_token: string; signing_secret: string }[]> {
  return db.selectFrom('chat_sync_connections').select(['community_id', 'bot_token', 'signing_secret']).execute();
}

/** Stores a connection's secrets sealed again. */
export async function updateSealedSyncSecrets(db: Db, communityId: string, botToken: string, signingSecret: string): Promise<void> {
  await db
    .updateTable('chat_sync_connections')
    .set({ bot_token: botToken, signing_secret: signingSecret })
    .where('community_id', '=', communityId)
    .execute();
}

/** The workspaces that are connected (the url_verification challenge names none). */
export async function selectConnectedTeamIds(db: Db): Promise<{ team_id: string }[]> {
  return db.selectFrom('chat_sync_connections').select('team_id').execute();
}

/** Whether the community has a Slack bot connected (an award's direct message needs one); reads no secret. */
export async function hasBotConnection(db: Db | Tx, communityId: string): Promise<boolean> {
  const row = await db
    .selectFrom('chat_sync_connections')
    .select('community_id')
    .where('community_id', '=', communityId)
    .executeTakeFirst();
  return row !== undefined;
}
