import type { Db, Tx } from '../../db/database.js';

/** True when the community has a group with this id. */
export async function groupExists(db: Db | Tx, communityId: string, groupId: string): Promise<boolean> {
  const row = await db
    .selectFrom('groups')
    .select('id')
    .where('community_id', '=', communityId)
    .where('id', '=', groupId)
    .executeTakeFirst();
  return row !== undefined;
}

/** Adds a profile to a group; false when it already was a member (nothing changes then). */
export async function insertGroupMember(
  db: Db | Tx,
  communityId: string,
  groupId: string,
  profileId: string,
  now: number,
): Promise<boolean> {
  const result = await db
    .insertInto('group_members')
    .values({ community_id: communityId, group_id: groupId, profile_id: profileId, created_at: now })
    .onConflict((oc) => oc.columns(['community_id', 'group_id', 'profile_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/** The id of the profile with this id, chat user id or email (first by creation), or undefined. */
export async function selectProfileIdBy(
  db: Db | Tx,
  communityId: string,
  by: { column: 'id' | 'chat_user_id' | 'email_norm'; value: string },
): Promise<string | undefined> {
  const row = await db
    .selectFrom('profiles')
    .select('id')
    .where('community_id', '=', communityId)
    .where(by.column, '=', by.value)
    .orderBy('created_at')
    .orderBy('id')
    .executeTakeFirst();
  return row?.id;
}

/** Inserts or renames groups by id, keeping each one's creation time. */
export async function upsertGroups(db: Db | Tx, communityId: string, groups: { id: string; name: string }[], now: number): Promise<void> {
  for (let i = 0; i < groups.length; i += 500) {
    await db
      .insertInto('groups')
      .values(
        groups.slice(i, i + 500).map((g) => ({ community_id: communityId, id: g.id, name: g.name, created_at: now, updated_at: now })),
      )
      .onConflict((oc) =>
        oc
          .columns(['community_id', 'id'])
          .doUpdateSet((eb) => ({ name: eb.ref('excluded.name'), updated_at: eb.ref('excluded.updated_at') })),
      )
      .execute();
  }
}

/**
 * Makes a group's members exactly these profiles: removes the others and adds the missing ones,
 * so that members who stay keep the time they joined.
 */
export async function replaceGroupMembers(
  db: Db | Tx,
  communityId: string,
  groupId: string,
  profileIds: string[],
  now: number,
): Promise<void> {
  const keep = new Set(profileIds);
  const current = await db
    .selectFrom('group_members')
    .select('profile_id')
    .where('community_id', '=', communityId)
    .where('group_id', '=', groupId)
    .execute();
  const gone = current.map((row) => row.profile_id).filter((id) => !keep.has(id));
  for (let i = 0; i < gone.length; i += 500) {
    await db
      .deleteFrom('group_members')
      .where('community_id', '=', communityId)
      .where('group_id', '=', groupId)
      .where('profile_id', 'in', gone.slice(i, i + 500))
      .execute();
  }
  for (let i = 0; i < profileIds.length; i += 500) {
    await db
      .insertInto('group_members')
      .values(
        profileIds
          .slice(i, i + 500)
          .map((profileId) => ({ community_id: communityId, group_id: groupId, profile_id: profileId, created_at: now })),
      )
      .onConflict((oc) => oc.columns(['community_id', 'group_id', 'profile_id']).doNothing())
      .execute();
  }
}
