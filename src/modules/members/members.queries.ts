import type { Selectable } from 'kysely';
import { batchesOf, selectInBatches } from '../../db/batches.js';
import type { Db, Tx } from '../../db/database.js';
import { preparedQuery, preparedWrite } from '../../db/prepared-query.js';
import type { MembersTable } from '../../db/schema.js';
import { type EpochMicros, epochMicros } from '../../shared/time.js';
import type { Member, MemberState } from './members.schemas.js';

export type MemberRow = Omit<Selectable<MembersTable>, 'community_id'>;

const memberColumns = [
  'id',
  'email',
  'email_norm',
  'full_name',
  'preferred_name',
  'avatar_url_original',
  'chat_profile_id',
  'state',
  'created_at',
  'updated_at',
] as const;

/** The API member of a stored row. */
export function toMember(row: MemberRow): Member {
  return {
    id: row.id,
    email: row.email,
    full_name: row.full_name,
    preferred_name: row.preferred_name,
    avatar_url_original: row.avatar_url_original,
    chat_profile_id: row.chat_profile_id,
  };
}

/** The member holding a normalised email, or undefined. */
export async function selectMemberByEmail(db: Db | Tx, communityId: string, emailNorm: string): Promise<MemberRow | undefined> {
  return db
    .selectFrom('members')
    .select(memberColumns)
    .where('community_id', '=', communityId)
    .where('email_norm', '=', emailNorm)
    .executeTakeFirst();
}

/** The member with this id, or undefined. */
export async function selectMemberById(db: Db | Tx, communityId: string, id: string): Promise<MemberRow | undefined> {
  return db.selectFrom('members').select(memberColumns).where('community_id', '=', communityId).where('id', '=', id).executeTakeFirst();
}

/**
 * Inserts a member unless its email is already held; false when it is (a concurrent add may have
 * won the race), which the caller turns into the update path.
 */
export async function insertMemberIfEmailFree(tx: Tx, communityId: string, row: MemberRow): Promise<boolean> {
  return (await insertMemberUnlessEmailTaken.execute(tx, { community_id: communityId, ...row })) > 0;
}

// Compiled once: a member add runs it on every request, and building it costs more than SQLite's insert.
const insertMemberUnlessEmailTaken = preparedWrite((tx: Tx, p: MemberRow & { community_id: string }) =>
  tx
    .insertInto('members')
    .values(p)
    .onConflict((oc) => oc.columns(['community_id', 'email_norm']).doNothing()),
);

/** Rewrites the changeable fields of a member. */
export async function updateMember(
  tx: Tx,
  communityId: string,
  id: string,
  changes: Pick<MemberRow, 'full_name' | 'preferred_name' | 'avatar_url_original' | 'chat_profile_id' | 'state' | 'updated_at'>,
): Promise<void> {
  await tx.updateTable('members').set(changes).where('community_id', '=', communityId).where('id', '=', id).execute();
}

/** Deactivates an active member; false when it was not active any more (a concurrent call won). */
export async function deactivateActiveMember(tx: Tx, communityId: string, id: string, now: EpochMicros): Promise<boolean> {
  const result = await tx
    .updateTable('members')
    .set({ state: 'deactivated', updated_at: now })
    .where('community_id', '=', communityId)
    .where('id', '=', id)
    .where('state', '=', 'active')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

const memberStateByEmail = preparedQuery((db, p: { communityId: string; emailNorm: string }) =>
  db.selectFrom('members').select('state').where('community_id', '=', p.communityId).where('email_norm', '=', p.emailNorm),
);

/** The state of the member holding a normalised email, or undefined. */
export async function selectMemberStateByEmail(db: Db | Tx, communityId: string, emailNorm: string): Promise<MemberState | undefined> {
  return (await memberStateByEmail.first(db, { communityId, emailNorm }))?.state;
}

/** The first profile with this email that has a chat identity (the member's chat profile), and the first profile of any kind. */
export async function selectProfilesForEmail(
  db: Db | Tx,
  communityId: string,
  emailNorm: string,
): Promise<{ chatProfileId: string | null; anyProfileId: string | null }> {
  const rows = await db
    .selectFrom('profiles')
    .select(['id', 'chat_user_id'])
    .where('community_id', '=', communityId)
    .where('email_norm', '=', emailNorm)
    .orderBy('created_at')
    .orderBy('id')
    .limit(50)
    .execute();
  const withChat = rows.find((row) => row.chat_user_id !== null && row.chat_user_id !== '');
  return { chatProfileId: withChat?.id ?? null, anyProfileId: rows[0]?.id ?? null };
}

/** Inserts or replaces members by id (the import); the caller settles created_at (given, or the stored one). */
export async function upsertMembersById(tx: Tx, communityId: string, rows: MemberRow[]): Promise<void> {
  for (const batch of batchesOf(rows)) {
    await tx
      .insertInto('members')
      .values(batch.map((row) => ({ community_id: communityId, ...row })))
      .onConflict((oc) =>
        oc.columns(['community_id', 'id']).doUpdateSet((eb) => ({
          email: eb.ref('excluded.email'),
          email_norm: eb.ref('excluded.email_norm'),
          full_name: eb.ref('excluded.full_name'),
          preferred_name: eb.ref('excluded.preferred_name'),
          avatar_url_original: eb.ref('excluded.avatar_url_original'),
          chat_profile_id: eb.ref('excluded.chat_profile_id'),
          state: eb.ref('excluded.state'),
          created_at: eb.ref('excluded.created_at'),
          updated_at: eb.ref('excluded.updated_at'),
        })),
      )
      .execute();
  }
}

/** Members of the community holding any of these normalised emails: email_norm → id (import conflict check). */
export async function selectMemberIdsByEmails(
  db: Db | Tx,
  communityId: string,
  emailNorms: readonly string[],
): Promise<Map<string, string>> {
  const rows = await selectInBatches(emailNorms, (batch) =>
    db
      .selectFrom('members')
      .select(['id', 'email_norm'])
      .where('community_id', '=', communityId)
      .where('email_norm', 'in', batch)
      .execute(),
  );
  return new Map(rows.map((row) => [row.email_norm, row.id]));
}

/** created_at of the given members that exist (a re-import without timestamps keeps it). */
export async function selectMemberCreatedAt(db: Db | Tx, communityId: string, ids: readonly string[]): Promise<Map<string, EpochMicros>> {
  const rows = await selectInBatches(ids, (batch) =>
    db.selectFrom('members').select(['id', 'created_at']).where('community_id', '=', communityId).where('id', 'in', batch).execute(),
  );
  return new Map(rows.map((row) => [row.id, epochMicros(Number(row.created_at))]));
}
