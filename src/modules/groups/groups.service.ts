import { notFound, validationFailed } from '../../errors.js';
import { toIso } from '../../shared/clock.js';
import { isUuid, normaliseEmail } from '../../shared/ids.js';
import type { StorageDeps } from '../../shared/service-deps.js';
import { millisFromMicros } from '../../shared/time.js';
import { writeCommunityData } from '../../write-path/write-community-data.js';
import { groupExists, insertGroupMember, selectProfileIdBy } from './groups.queries.js';
import type { GroupUser } from './groups.schemas.js';

export type GroupDeps = StorageDeps;

const identifierFields = ['chat_user_id', 'email', 'profile_id'] as const;

/**
 * The one identifier a request names a user by (a group-add's `user`, an award's `recipient` and
 * `sender`: `at` is the field); a 400 naming the field when there are none or several.
 */
export function userIdentifier(user: GroupUser, at = 'body.user'): { column: 'id' | 'chat_user_id' | 'email_norm'; value: string } {
  const given = identifierFields.filter((field) => user[field] !== undefined);
  if (given.length !== 1) {
    const found = given.length === 0 ? 'none was given' : `got ${given.join(' and ')}`;
    throw validationFailed(at, `must hold exactly one of chat_user_id, email, profile_id (${found})`);
  }
  const field = given[0] as (typeof identifierFields)[number];
  const value = user[field] as string;
  if (field === 'email') {
    // Profiles without an e-mail are stored with "": a blank e-mail must not find one of them.
    const emailNorm = normaliseEmail(value);
    if (emailNorm === '') throw validationFailed(`${at}.email`, 'must not be blank');
    return { column: 'email_norm', value: emailNorm };
  }
  // Profile ids are stored lower-case; a UUID is the same id in any letter case.
  if (field === 'profile_id') return { column: 'id', value: isUuid(value) ? value.toLowerCase() : value };
  return { column: 'chat_user_id', value };
}

/** Adds the profile a user identifier names to a group; reports whether it already was a member. */
export async function addGroupMember(
  deps: GroupDeps,
  communityId: string,
  groupId: string,
  user: GroupUser,
): Promise<{ alreadyMember: boolean }> {
  const identifier = userIdentifier(user);
  const db = deps.database.db;
  if (!(await groupExists(db, communityId, groupId))) throw notFound('Group');
  const profileId = await selectProfileIdBy(db, communityId, identifier);
  if (profileId === undefined) throw notFound('User');
  const added = await writeCommunityData(deps, communityId, async (w) => {
    const inserted = await insertGroupMember(w.tx, communityId, groupId, profileId, w.now);
    if (inserted)
      w.emit('group.member_added', () => ({ group_id: groupId, profile_id: profileId, added_at: toIso(millisFromMicros(w.now)) }));
    return inserted;
  });
  return { alreadyMember: !added };
}
