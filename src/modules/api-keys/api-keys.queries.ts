import type { Db } from '../../db/database.js';

export interface ApiKeyRow {
  id: string;
  community_id: string;
  label: string;
  key_hash: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

export interface KeyPrincipalRow {
  key_id: string;
  community_id: string;
  plan: string;
  revoked_at: number | null;
  last_used_at: number | null;
}

/** Inserts a key (its hash only). */
export async function insertApiKey(db: Db, row: ApiKeyRow): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

/** Keys of a community, oldest first. */
export async function selectApiKeys(db: Db, communityId: string): Promise<ApiKeyRow[]> {
  return db.selectFrom('api_keys').selectAll().where('community_id', '=', communityId).orderBy('created_at').orderBy('id').execute();
}

/** One key by id. */
export async function selectApiKey(db: Db, id: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Sets revoked_at unless already set; returns the key as it is afterwards. */
export async function revokeApiKeyRow(db: Db, id: string, at: number): Promise<ApiKeyRow | undefined> {
  await db.updateTable('api_keys').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).execute();
  return selectApiKey(db, id);
}

/** The key with this hash and its community's plan: what authentication needs, in one indexed read. */
export async function selectPrincipalByHash(db: Db, keyHash: string): Promise<KeyPrincipalRow | undefined> {
  return db
    .selectFrom('api_keys')
    .innerJoin('communities', 'communities.id', 'api_keys.community_id')
    .select(['api_keys.id as key_id', 'api_keys.community_id', 'communities.plan', 'api_keys.revoked_at', 'api_keys.last_used_at'])
    .where('api_keys.key_hash', '=', keyHash)
    .executeTakeFirst();
}

/** Records use of a key (written at most once a minute per key, see the authenticator). */
export async function touchApiKey(db: Db, id: string, at: number): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
}
