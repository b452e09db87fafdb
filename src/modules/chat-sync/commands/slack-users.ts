import type { CommunityWrite } from '../../../write-path/write-community-data.js';
import { type ChatProfile, writeChatProfiles } from '../../profiles/profiles.commands.js';
import { profileIdsFor } from '../reads/authors.js';
import { profileRecordOf, type SlackObject } from '../rules/slack-records.js';

/** Upserts the profiles of Slack users (users.list page, user_change, team_join, unknown authors); returns how many changed. */
export async function writeProfiles(
  w: CommunityWrite,
  { teamId, users }: { teamId: string; users: readonly SlackObject[] },
): Promise<number> {
  const userIds = users.map((user) => String(user.id ?? '')).filter(Boolean);
  const ids = await profileIdsFor(w.tx, w.communityId, teamId, userIds);
  const profiles: ChatProfile[] = [];
  for (const user of users) {
    const profileId = ids.get(String(user.id ?? ''));
    if (profileId !== undefined) profiles.push({ record: profileRecordOf(user, profileId), deleted: user.deleted === true });
  }
  return writeChatProfiles(w, profiles);
}
