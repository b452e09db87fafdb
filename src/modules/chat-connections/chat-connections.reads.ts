import type { ChatWorkspace } from '../../chat/index.js';
import type { ChatConnectionDeps } from './chat-connections.commands.js';
import { selectChatConnection } from './chat-connections.queries.js';

/** The chat workspace of a community, built from its stored connection; null when the community has none. */
export async function chatWorkspaceOf(
  { database, chat: factory, secrets }: Pick<ChatConnectionDeps, 'database' | 'chat' | 'secrets'>,
  communityId: string,
): Promise<ChatWorkspace | null> {
  const connection = await selectChatConnection(database.db, communityId);
  return connection ? factory({ token: secrets.open(connection.token), teamId: connection.team_id }) : null;
}
