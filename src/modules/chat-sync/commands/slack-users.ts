import type { Tx } from '../../../db/database.js';
import type { CommunityWrite } from '../../../write-path/write-community-data.js';
import { type ChatProfile, writeChatProfiles } from '../../profiles/profiles.commands.js';
import { selectProfilesByChatUserIds } from '../../profiles/profiles.queries.js';
import { profileRecordOf, type SlackObject, stableUuid } from '../rules/slack-records.js';

/** Profile ids for Slack user ids: the one a profile already has (import, earlier sync), else a stable one. */
export async function profileIdsFor(tx: Tx, communityId: string, teamId: string, userIds: string[]): Promise<Map<string, string>> {
  const known = await selectProfilesByChatUserIds(tx, communityId, userIds);
  return new Map(userIds.map((id) => [id, known.get(id)?.profile_id ?? stableUuid('profile', teamId, id)]));
}

/** Upserts the profiles of Slack users (users.list page, user_change, team_join, unknown authors); returns how many changed. */
export async function writeProfiles(w: CommunityWrite, teamId: string, users: SlackObject[]): Promise<number> {
  const userIds = users.map((user) => String(user.id ?? '')).filter(Boolean);
  const ids = await profileIdsFor(w.tx, w.communityId, teamId, userIds);
  const profiles: ChatProfile[] = [];
  for (const user of users) {
    const profileId = ids.get(String(user.id ?? ''));
    if (profileId !== undefined) profiles.push({ record: profileRecordOf(user, profileId), deleted: user.deleted === true });
  }
  return writeChatProfiles(w, profiles);
}
