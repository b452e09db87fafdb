import type { Selectable } from 'kysely';
import { batchesOf, selectInBatches } from '../../db/batches.js';
import type { Db, Tx } from '../../db/database.js';
import { preparedQuery } from '../../db/prepared-query.js';
import type { ProfilesTable } from '../../db/schema.js';
import { normaliseEmail } from '../../shared/ids.js';
import { parseTimestamp } from '../../shared/timestamps.js';
import { reindexAuthors } from '../search/queries/entries.js';
import type { Profile } from './profiles.schemas.js';

export type ProfileRow = Pick<Selectable<ProfilesTable>, 'id' | 'email_norm' | 'chat_user_id' | 'doc'>;

/** Inserts or replaces profiles by id, in batches; posts of a renamed author are indexed again (their author's name is searchable). */
export async function upsertProfiles(tx: Tx, communityId: string, profiles: Profile[], now: number): Promise<void> {
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
    await reindexAuthors(
      tx,
      communityId,
      batch.map((profile) => ({ id: profile.profile_id, name: profile.preferred_name })),
    );
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
  const rows = await selectInBatches(chatUserIds, (batch) => profilesByChatUserIds.all(db, { communityId, chatUserIds: batch }));
  for (const row of rows) if (row.chat_user_id) result.set(row.chat_user_id, JSON.parse(row.doc) as Profile);
  return result;
}

/** Which of these ids are profiles of the community (import reference checks). */
export async function selectExistingProfileIds(db: Db | Tx, communityId: string, ids: readonly string[]): Promise<Set<string>> {
  const rows = await selectInBatches(ids, (batch) =>
    db.selectFrom('profiles').select('id').where('community_id', '=', communityId).where('id', 'in', batch).execute(),
  );
  return new Set(rows.map((row) => row.id));
}

/** created_at of the given profiles that exist (re-imports keep it). */
export async function selectProfileCreatedAt(db: Db | Tx, communityId: string, ids: readonly string[]): Promise<Map<string, number>> {
  const rows = await selectInBatches(ids, (batch) =>
    db.selectFrom('profiles').select(['id', 'created_at']).where('community_id', '=', communityId).where('id', 'in', batch).execute(),
  );
  return new Map(rows.map((row) => [row.id, row.created_at]));
}
