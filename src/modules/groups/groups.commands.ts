import { notFound } from '../../errors.js';
import { toIso } from '../../shared/clock.js';
import type { StorageDeps } from '../../shared/service-deps.js';
import { millisFromMicros } from '../../shared/time.js';
import type { CommandContext } from '../../write-path/command-context.js';
import { writeCommunityData } from '../../write-path/write-community-data.js';
import { selectProfileIdByKey } from '../profiles/profiles.queries.js';
import { userIdentifier } from '../profiles/profiles.rules.js';
import { groupExists, insertGroupMember } from './groups.queries.js';
import type { GroupUser } from './groups.schemas.js';

/** What group commands are given. */
export type GroupDeps = StorageDeps;

/** Adds the profile a user identifier names to a group; reports whether it already was a member. */
export async function addGroupMember(
  ctx: CommandContext<GroupDeps>,
  { groupId, user }: { groupId: string; user: GroupUser },
): Promise<{ alreadyMember: boolean }> {
  const { communityId } = ctx;
  const identifier = userIdentifier(user);
  const db = ctx.database.db;
  if (!(await groupExists(db, communityId, groupId))) throw notFound('Group');
  const profileId = await selectProfileIdByKey(db, communityId, identifier);
  if (profileId === undefined) throw notFound('User');
  const added = await writeCommunityData(ctx, communityId, async (w) => {
    const inserted = await insertGroupMember(w.tx, communityId, groupId, profileId, w.now);
    if (inserted)
      w.emit('group.member_added', () => ({ group_id: groupId, profile_id: profileId, added_at: toIso(millisFromMicros(w.now)) }));
    if (inserted)
      w.record({ action: 'group.member_added', target: { type: 'group', id: groupId, name: null }, metadata: { profile_id: profileId } });
    return inserted;
  });
  return { alreadyMember: !added };
}
