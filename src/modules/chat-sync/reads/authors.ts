import type { ChatReader } from '../../../chat/slack-reader.js';
import type { Db, Tx } from '../../../db/database.js';
import { selectProfilesByChatUserIds } from '../../profiles/profiles.queries.js';
import { authorIdOf, type SlackObject, stableUuid } from '../rules/slack-records.js';

/**
 * The Slack users that messages name as authors but that have no profile yet, fetched before the
 * write (never inside a transaction): users.info for people, and for a bot's message without a
 * user, a bot user made of the message's own name and icon.
 */
export async function missingAuthors(
  tx: Db | Tx,
  reader: ChatReader,
  communityId: string,
  messages: SlackObject[],
): Promise<SlackObject[]> {
  const ids = [...new Set(messages.map(authorIdOf).filter(Boolean))];
  if (ids.length === 0) return [];
  const known = await selectProfilesByChatUserIds(tx, communityId, ids);
  const users: SlackObject[] = [];
  for (const id of ids) {
    if (known.has(id)) continue;
    const message = messages.find((m) => authorIdOf(m) === id) as SlackObject;
    if (typeof message.user === 'string' && message.user !== '') {
      try {
        users.push((await reader.call('users.info', { user: id })).user as SlackObject);
        continue;
      } catch {
        // Unknown to users.info (another workspace's user in a shared channel): a minimal profile.
      }
    }
    const icons = (message.icons ?? {}) as SlackObject;
    const name = typeof message.username === 'string' && message.username !== '' ? message.username : id;
    users.push({
      id,
      is_bot: message.user === undefined,
      real_name: name,
      profile: { real_name: name, image_48: icons.image_48, image_72: icons.image_72 },
    });
  }
  return users;
}

/** Profile ids for Slack user ids: the one a profile already has (import, earlier sync), else a stable one. */
export async function profileIdsFor(tx: Db | Tx, communityId: string, teamId: string, userIds: string[]): Promise<Map<string, string>> {
  const known = await selectProfilesByChatUserIds(tx, communityId, userIds);
  return new Map(userIds.map((id) => [id, known.get(id)?.profile_id ?? stableUuid('profile', teamId, id)]));
}
