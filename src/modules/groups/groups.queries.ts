import { PostgresAdapter, sql } from 'kysely';
import { batchesOf } from '../../db/batches.js';
import type { Db, Engine, Tx } from '../../db/database.js';
import { orderedRows } from '../../db/ordered-rows.js';
import type { EpochMicros } from '../../shared/time.js';

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
  tx: Tx,
  communityId: string,
  groupId: string,
  profileId: string,
  now: EpochMicros,
): Promise<boolean> {
  const result = await tx
    .insertInto('group_members')
    .values({ community_id: communityId, group_id: groupId, profile_id: profileId, created_at: now })
    .onConflict((oc) => oc.columns(['community_id', 'group_id', 'profile_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/** A group row as the import writes it: created_at undefined keeps the stored one (or takes `now` for a new group). */
export interface GroupUpsert {
  id: string;
  name: string;
  created_at?: EpochMicros;
  updated_at?: EpochMicros;
}

/** Inserts or renames groups by id; timestamps the caller gives are kept, created_at otherwise stays. */
export async function upsertGroups(tx: Tx, communityId: string, groups: GroupUpsert[], now: EpochMicros): Promise<void> {
  for (const batch of batchesOf(groups)) {
    const values = (g: GroupUpsert) => ({
      community_id: communityId,
      id: g.id,
      name: g.name,
      created_at: g.created_at ?? now,
      updated_at: g.updated_at ?? now,
    });
    // Two statements, so that a created_at the file leaves out never replaces the stored one.
    const given = batch.filter((g) => g.created_at !== undefined);
    const open = batch.filter((g) => g.created_at === undefined);
    if (given.length > 0) {
      await tx
        .insertInto('groups')
        .values(given.map(values))
        .onConflict((oc) =>
          oc.columns(['community_id', 'id']).doUpdateSet((eb) => ({
            name: eb.ref('excluded.name'),
            created_at: eb.ref('excluded.created_at'),
            updated_at: eb.ref('excluded.updated_at'),
          })),
        )
        .execute();
    }
    if (open.length > 0) {
      await tx
        .insertInto('groups')
        .values(open.map(values))
        .onConflict((oc) =>
          oc
            .columns(['community_id', 'id'])
            .doUpdateSet((eb) => ({ name: eb.ref('excluded.name'), updated_at: eb.ref('excluded.updated_at') })),
        )
        .execute();
    }
  }
}

/**
 * Makes a group's members exactly these profiles: removes the others and adds the missing ones,
 * so that members who stay keep the time they joined.
 */
export async function replaceGroupMembers(
  tx: Tx,
  communityId: string,
  groupId: string,
  profileIds: string[],
  now: EpochMicros,
): Promise<void> {
  const keep = new Set(profileIds);
  const current = await tx
    .selectFrom('group_members')
    .select('profile_id')
    .where('community_id', '=', communityId)
    .where('group_id', '=', groupId)
    .execute();
  const gone = current.map((row) => row.profile_id).filter((id) => !keep.has(id));
  for (const batch of batchesOf(gone)) {
    await tx
      .deleteFrom('group_members')
      .where('community_id', '=', communityId)
      .where('group_id', '=', groupId)
      .where('profile_id', 'in', batch)
      .execute();
  }
  for (const batch of batchesOf(profileIds)) {
    await tx
      .insertInto('group_members')
      .values(batch.map((profileId) => ({ community_id: communityId, group_id: groupId, profile_id: profileId, created_at: now })))
      .onConflict((oc) => oc.columns(['community_id', 'group_id', 'profile_id']).doNothing())
      .execute();
  }
}

/** The community's groups in byte order of id, a batch at a time (the export). */
export function groupRowsInIdOrder(tx: Db, engine: Engine, communityId: string) {
  return orderedRows(tx, engine, 'groups', communityId, (q) => q.select(['id', 'name', 'created_at', 'updated_at']));
}

/** The member profile ids of these groups (the export), by group id, in the order the database gives. */
export async function selectGroupMemberProfileIds(
  db: Db | Tx,
  communityId: string,
  groupIds: readonly string[],
): Promise<Map<string, string[]>> {
  const members = new Map<string, string[]>();
  for (const batch of batchesOf(groupIds)) {
    const found = await db
      .selectFrom('group_members')
      .select(['group_id', 'profile_id'])
      .where('community_id', '=', communityId)
      .where('group_id', 'in', batch)
      .execute();
    for (const { group_id, profile_id } of found) {
      const list = members.get(group_id) ?? [];
      list.push(profile_id);
      members.set(group_id, list);
    }
  }
  return members;
}

/** A page of the community's groups by name (ties by id, byte order on both engines), each with its member count, and their total. */
export async function selectGroupsPage(
  db: Db,
  communityId: string,
  limit: number,
  offset: number,
): Promise<{ rows: { id: string; name: string; created_at: number | string; member_count: number | string }[]; total: number }> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const [rows, count] = await Promise.all([
    db
      .selectFrom('groups as g')
      .select(['g.id', 'g.name', 'g.created_at'])
      .select((eb) =>
        eb
          .selectFrom('group_members as m')
          .select(eb.fn.countAll<number | string>().as('n'))
          .whereRef('m.community_id', '=', 'g.community_id')
          .whereRef('m.group_id', '=', 'g.id')
          .as('member_count'),
      )
      .where('g.community_id', '=', communityId)
      .orderBy(postgres ? sql`g.name collate "C"` : sql`g.name`)
      .orderBy(postgres ? sql`g.id collate "C"` : sql`g.id`)
      .limit(limit)
      .offset(offset)
      .execute(),
    db
      .selectFrom('groups')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('community_id', '=', communityId)
      .executeTakeFirst(),
  ]);
  return { rows: rows.map((row) => ({ ...row, member_count: row.member_count ?? 0 })), total: Number(count?.n ?? 0) };
}
