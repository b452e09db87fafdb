import type { Db, Tx } from '../../db/database.js';
import { preparedQuery } from '../../db/prepared-query.js';
import { normaliseEmail } from '../../shared/ids.js';
import type { Profile } from './profiles.schemas.js';

export interface ProfileRow {
  id: string;
  email_norm: string;
  chat_user_id: string | null;
  doc: string;
}

const batchSize = 500;

/** Inserts or replaces profiles by id, in batches. */
export async function upsertProfiles(db: Db | Tx, communityId: string, profiles: Profile[], now: number): Promise<void> {
  for (let i = 0; i < profiles.length; i += batchSize) {
    const rows = profiles.slice(i, i + batchSize).map((profile) => ({
      community_id: communityId,
      id: profile.profile_id,
      email_norm: normaliseEmail(profile.email),
      chat_user_id: profile.chat_user_id === '' ? null : profile.chat_user_id,
      doc: JSON.stringify(profile),
      created_at: Date.parse(profile.created_at),
      updated_at: now,
    }));
    await db
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
  const result = new Map<string, string>();
  const unique = [...new Set(ids)];
  for (let i = 0; i < unique.length; i += batchSize) {
    for (const row of await profileDocsByIds.all(db, { communityId, ids: unique.slice(i, i + batchSize) })) result.set(row.id, row.doc);
  }
  return result;
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
  const unique = [...new Set(chatUserIds)];
  for (let i = 0; i < unique.length; i += batchSize) {
    const rows = await profilesByChatUserIds.all(db, { communityId, chatUserIds: unique.slice(i, i + batchSize) });
    for (const row of rows) if (row.chat_user_id) result.set(row.chat_user_id, JSON.parse(row.doc) as Profile);
  }
  return result;
}

/** The first profile with this email (case-insensitive), or undefined. */
export async function selectProfileByEmail(db: Db | Tx, communityId: string, email: string): Promise<Profile | undefined> {
  const row = await db
    .selectFrom('profiles')
    .select('doc')
    .where('community_id', '=', communityId)
    .where('email_norm', '=', normaliseEmail(email))
    .orderBy('created_at')
    .orderBy('id')
    .executeTakeFirst();
  return row ? (JSON.parse(row.doc) as Profile) : undefined;
}

/** Which of these ids are profiles of the community (import reference checks). */
export async function selectExistingProfileIds(db: Db | Tx, communityId: string, ids: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  const unique = [...new Set(ids)];
  for (let i = 0; i < unique.length; i += batchSize) {
    const rows = await db
      .selectFrom('profiles')
      .select('id')
      .where('community_id', '=', communityId)
      .where('id', 'in', unique.slice(i, i + batchSize))
      .execute();
    for (const row of rows) found.add(row.id);
  }
  return found;
}

/** created_at of the given profiles that exist (re-imports keep it). */
export async function selectProfileCreatedAt(db: Db | Tx, communityId: string, ids: readonly string[]): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  const unique = [...new Set(ids)];
  for (let i = 0; i < unique.length; i += batchSize) {
    const rows = await db
      .selectFrom('profiles')
      .select(['id', 'created_at'])
      .where('community_id', '=', communityId)
      .where('id', 'in', unique.slice(i, i + batchSize))
      .execute();
    for (const row of rows) found.set(row.id, row.created_at);
  }
  return found;
}
