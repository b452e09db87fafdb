import type { Db, Tx } from '../../../db/database.js';
import type { ChatSyncConnectionsTable } from '../../../db/schema.js';
import { refuse } from '../../../shared/failures.js';
import type { SecretBox } from '../../../shared/secret-box.js';
import { selectConnectionRowOfCommunity, selectConnectionRowOfTeam } from '../queries/connections.js';

/** A community's Slack bot connection with its secrets opened (only ever held in memory). */
export interface SyncConnection {
  communityId: string;
  teamId: string;
  teamUrl: string;
  apiAppId: string | null;
  botUserId: string | null;
  botToken: string;
  signingSecret: string;
}

function opened(row: ChatSyncConnectionsTable, box: SecretBox): SyncConnection {
  return {
    communityId: row.community_id,
    teamId: row.team_id,
    teamUrl: row.team_url,
    apiAppId: row.api_app_id,
    botUserId: row.bot_user_id,
    botToken: box.open(row.bot_token),
    signingSecret: box.open(row.signing_secret),
  };
}

export async function selectSyncConnection(db: Db | Tx, box: SecretBox, communityId: string): Promise<SyncConnection | undefined> {
  const row = await selectConnectionRowOfCommunity(db, communityId);
  return row && opened(row, box);
}

/** The connection of a workspace (Events API deliveries name their team). */
export async function selectSyncConnectionByTeam(db: Db | Tx, box: SecretBox, teamId: string): Promise<SyncConnection | undefined> {
  const row = await selectConnectionRowOfTeam(db, teamId);
  return row && opened(row, box);
}

export async function requireSyncConnection(db: Db | Tx, box: SecretBox, communityId: string): Promise<SyncConnection> {
  const connection = await selectSyncConnection(db, box, communityId);
  if (!connection) {
    throw refuse(
      [],
      'not_connected',
      `Community ${communityId} has no chat bot connection: run community-admin chat connect --community ${communityId} --bot-token xoxb-... --signing-secret ...`,
    );
  }
  return connection;
}
