import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { ApiKeysTable } from '../../db/schema.js';
import type { KeyKind } from '../../shared/principal.js';
import type { EpochMillis } from '../../shared/time.js';

export type ApiKeyRow = Selectable<ApiKeysTable>;

export interface KeyPrincipalRow {
  key_id: string;
  label: string;
  community_id: string;
  plan: string;
  revoked_at: EpochMillis | null;
  last_used_at: EpochMillis | null;
  permissions: string;
  expires_at: EpochMillis | null;
  previous_valid_until: EpochMillis | null;
  kind: KeyKind;
  /** Truthy when the hash is the one a rotation replaced (valid until previous_valid_until), not the current one. */
  by_previous: unknown;
}

/** Inserts a key (its hash only); `db` may be a transaction (a console session's key is made in its sign-in's). */
export async function insertApiKey(
  db: Db,
  row: Omit<ApiKeyRow, 'previous_key_hash' | 'previous_valid_until' | 'permissions' | 'kind'> & { permissions: string; kind?: KeyKind },
): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

/** Keys of a community, oldest first. */
export async function selectApiKeys(db: Db, communityId: string): Promise<ApiKeyRow[]> {
  return db.selectFrom('api_keys').selectAll().where('community_id', '=', communityId).orderBy('created_at').orderBy('id').execute();
}

/** A page of a community's live (unrevoked) keys, oldest first (ties by id), with their total (the API's list). */
export async function selectLiveApiKeysPage(
  db: Db,
  communityId: string,
  limit: number,
  offset: number,
): Promise<{ rows: ApiKeyRow[]; total: number }> {
  const live = db.selectFrom('api_keys').where('community_id', '=', communityId).where('revoked_at', 'is', null);
  const [rows, count] = await Promise.all([
    live.selectAll().orderBy('created_at').orderBy('id').limit(limit).offset(offset).execute(),
    live.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirst(),
  ]);
  return { rows, total: Number(count?.n ?? 0) };
}

/** One key by id. */
export async function selectApiKey(db: Db, id: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Sets revoked_at unless already set; returns the key as it is afterwards. */
export async function revokeApiKeyRow(db: Db, id: string, at: EpochMillis): Promise<ApiKeyRow | undefined> {
  await db.updateTable('api_keys').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).execute();
  return selectApiKey(db, id);
}

/** Replaces a live key's secret, keeping the replaced hash valid until `previousValidUntil`; false when no live key has the id. */
export async function rotateApiKeyRow(
  db: Db,
  id: string,
  change: { keyHash: string; previousHash: string; previousValidUntil: EpochMillis },
): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ key_hash: change.keyHash, previous_key_hash: change.previousHash, previous_valid_until: change.previousValidUntil })
    .where('id', '=', id)
    .where('key_hash', '=', change.previousHash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Sets a key's permissions; false when there is no such key. */
export async function updateApiKeyPermissions(db: Db, id: string, permissions: string): Promise<boolean> {
  const result = await db.updateTable('api_keys').set({ permissions }).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * The key whose current secret, or whose secret replaced by a rotation, has this hash, with its
 * community's plan: what authentication needs, in one read over two unique indexes (one lookup
 * per refused guess, as before rotation existed).
 */
export async function selectPrincipalByHash(db: Db, keyHash: string): Promise<KeyPrincipalRow | undefined> {
  return db
    .selectFrom('api_keys')
    .innerJoin('communities', 'communities.id', 'api_keys.community_id')
    .select([
      'api_keys.id as key_id',
      'api_keys.label',
      'api_keys.community_id',
      'communities.plan',
      'api_keys.revoked_at',
      'api_keys.last_used_at',
      'api_keys.permissions',
      'api_keys.expires_at',
      'api_keys.previous_valid_until',
      'api_keys.kind',
      (eb) => eb('api_keys.previous_key_hash', '=', keyHash).as('by_previous'),
    ])
    .where((eb) => eb.or([eb('api_keys.key_hash', '=', keyHash), eb('api_keys.previous_key_hash', '=', keyHash)]))
    .executeTakeFirst();
}

/** Records use of a key (written at most once a minute per key, see the authenticator). */
export async function touchApiKey(db: Db, id: string, at: EpochMillis): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
}

/** A key with its community, for the key's own introspection (`GET /api_key/me`). */
export async function selectKeyWithCommunity(db: Db, id: string) {
  return db
    .selectFrom('api_keys')
    .innerJoin('communities', 'communities.id', 'api_keys.community_id')
    .select([
      'api_keys.id',
      'api_keys.label',
      'api_keys.permissions',
      'api_keys.created_at',
      'api_keys.expires_at',
      'api_keys.last_used_at',
      'communities.id as community_id',
      'communities.name as community_name',
      'communities.plan',
    ])
    .where('api_keys.id', '=', id)
    .executeTakeFirst();
}
