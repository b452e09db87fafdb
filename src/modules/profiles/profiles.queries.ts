import { type RawBuilder, type Selectable, sql } from 'kysely';
import { batchesOf, selectInBatches } from '../../db/batches.js';
import type { Db, Engine, Tx } from '../../db/database.js';
import { orderedRows } from '../../db/ordered-rows.js';
import { preparedQuery } from '../../db/prepared-query.js';
import type { ProfilesTable } from '../../db/schema.js';
import { normaliseEmail } from '../../shared/ids.js';
import type { EpochMicros } from '../../shared/time.js';
import { parseTimestamp } from '../../shared/timestamps.js';
import type { Profile } from './profiles.schemas.js';

export type ProfileRow = Pick<Selectable<ProfilesTable>, 'id' | 'email_norm' | 'chat_user_id' | 'doc'>;

/** Inserts or replaces profiles by id, in batches (the upsertProfiles command then indexes a renamed author's posts again). */
export async function upsertProfileRows(tx: Tx, communityId: string, profiles: Profile[], now: EpochMicros): Promise<void> {
  for (const batch of batchesOf(profiles)) {
    const rows = batch.map((profile) => ({
      community_id: communityId,
      id: profile.profile_id,
      // "" for a profile without an e-mail: no lookup by e-mail ever asks for "" (see docs/members.md).
      email_norm: normaliseEmail(profile.email ?? ''),
      chat_user_id: profile.chat_user_id === '' ? null : profile.chat_user_id,
      doc: JSON.stringify(profile),
      created_at: parseTimestamp(profile.created_at) ?? now,
      updated_at: now,
    }));
    await tx
      .insertInto('profiles')
      .values(rows)
      .onConflict((oc) =>
        oc.columns(['community_id', 'id']).doUpdateSet((eb) => ({
          email_norm: eb.ref('excluded.email_norm'),
          chat_user_id: eb.ref('excluded.chat_user_id'),
          doc: eb.ref('excluded.doc'),
          updated_at: eb.ref('excluded.updated_at'),
        })),
      )
      .execute();
  }
}

const profileDocsByIds = preparedQuery((db, p: { communityId: string; ids: readonly string[] }) =>
  db.selectFrom('profiles').select(['id', 'doc']).where('community_id', '=', p.communityId).where('id', 'in', p.ids),
);

/**
 * Profiles by id as their stored JSON text, keyed by profile_id (unknown ids are absent): the text
 * is the API's profile as the import wrote it, spliced into records as it is.
 */
export async function selectProfileJsonByIds(db: Db | Tx, communityId: string, ids: readonly string[]): Promise<Map<string, string>> {
  const rows = await selectInBatches(ids, (batch) => profileDocsByIds.all(db, { communityId, ids: batch }));
  return new Map(rows.map((row) => [row.id, row.doc]));
}

const profilesByChatUserIds = preparedQuery((db, p: { communityId: string; chatUserIds: readonly string[] }) =>
  db
    .selectFrom('profiles')
    .select(['chat_user_id', 'doc'])
    .where('community_id', '=', p.communityId)
    .where('chat_user_id', 'in', p.chatUserIds),
);

/** Profiles by chat user id (mention resolution, group adds, attendee updates). */
export async function selectProfilesByChatUserIds(
  db: Db | Tx,
  communityId: string,
  chatUserIds: readonly string[],
): Promise<Map<string, Profile>> {
  const result = new Map<string, Profile>();
  for (const row of await selectProfileDocsByChatUserIds(db, communityId, chatUserIds)) {
    if (row.chat_user_id) result.set(row.chat_user_id, JSON.parse(row.doc) as Profile);
  }
  return result;
}

/** The stored profiles (JSON text) of these chat user ids, unparsed: mention resolution derives what it shows once per text. */
export function selectProfileDocsByChatUserIds(
  db: Db | Tx,
  communityId: string,
  chatUserIds: readonly string[],
): Promise<readonly Pick<ProfilesTable, 'chat_user_id' | 'doc'>[]> {
  return selectInBatches(chatUserIds, (batch) => profilesByChatUserIds.all(db, { communityId, chatUserIds: batch }));
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

/**
 * The profiles part of the PostgreSQL statement of what a page refers to (src/references/related-rows.ts):
 * rows `(part, chat_user_id, null, 0, doc, null)` of the profiles with these chat user ids.
 */
export const profilesByChatUserIdsPart = (part: number, communityId: string, chatUserIds: readonly string[]): RawBuilder<unknown> =>
  sql`select ${sql.lit(part)}, pr.chat_user_id, null, 0, pr.doc, null
      from profiles pr
      where pr.community_id = ${communityId} and pr.chat_user_id = any(${chatUserIds}::text[])`;

/** Sets the chat platform's deleted mark of profiles where it differs; returns how many changed. */
export async function markProfilesChatDeleted(tx: Tx, communityId: string, ids: readonly string[], flag: 0 | 1): Promise<number> {
  const result = await tx
    .updateTable('profiles')
    .set({ chat_deleted: flag })
    .where('community_id', '=', communityId)
    .where('id', 'in', ids)
    .where('chat_deleted', '<>', flag)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** The community's profiles in byte order of id, a batch at a time (the export). */
export function profileRowsInIdOrder(tx: Db, engine: Engine, communityId: string) {
  return orderedRows(tx, engine, 'profiles', communityId, (q) => q.select(['id', 'doc']));
}

/** Which of these ids are profiles of the community (import reference checks). */
export async function selectExistingProfileIds(db: Db | Tx, communityId: string, ids: readonly string[]): Promise<Set<string>> {
  const rows = await selectInBatches(ids, (batch) =>
    db.selectFrom('profiles').select('id').where('community_id', '=', communityId).where('id', 'in', batch).execute(),
  );
  return new Set(rows.map((row) => row.id));
}

/** created_at of the given profiles that exist (re-imports keep it). */
export async function selectProfileCreatedAt(db: Db | Tx, communityId: string, ids: readonly string[]): Promise<Map<string, EpochMicros>> {
  const rows = await selectInBatches(ids, (batch) =>
    db.selectFrom('profiles').select(['id', 'created_at']).where('community_id', '=', communityId).where('id', 'in', batch).execute(),
  );
  return new Map(rows.map((row) => [row.id, row.created_at]));
}

/** A profile named by one of its keys: its id, its chat user id or its normalised e-mail. */
export interface ProfileKey {
  column: 'id' | 'chat_user_id' | 'email_norm';
  value: string;
}

/** The lookup by one key column, compiled once: the attendee update (by chat user id) is a hot path. */
const profileIdBy = (column: ProfileKey['column']) =>
  preparedQuery((db, p: { communityId: string; value: string }) =>
    db
      .selectFrom('profiles')
      .select('id')
      .where('community_id', '=', p.communityId)
      .where(column, '=', p.value)
      .orderBy('created_at')
      .orderBy('id')
      .limit(1),
  );
const profileIdByKey = { id: profileIdBy('id'), chat_user_id: profileIdBy('chat_user_id'), email_norm: profileIdBy('email_norm') };

/** The id of the community's profile with this key (the oldest, if several), or undefined. */
export async function selectProfileIdByKey(db: Db | Tx, communityId: string, key: ProfileKey): Promise<string | undefined> {
  return (await profileIdByKey[key.column].first(db, { communityId, value: key.value }))?.id;
}
