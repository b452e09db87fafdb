import { hash, randomBytes } from 'node:crypto';
import type { Database } from '../../db/database.js';
import { UserInputError } from '../../errors.js';
import { type Clock, toIso } from '../../shared/clock.js';
import { newUuid } from '../../shared/ids.js';
import { selectCommunity } from '../communities/communities.queries.js';
import { insertApiKey, revokeApiKeyRow, selectApiKeys } from './api-keys.queries.js';

/** Prefix that makes a leaked key recognisable by secret scanners. */
const keyPrefix = 'ca_';

/** SHA-256 of a key's secret: the only form in which keys are stored (one-shot `hash`: no Hash object per request). */
export const hashApiKey = (secret: string): string => hash('sha256', secret, 'hex');

export interface CreatedApiKey {
  id: string;
  key: string;
  community_id: string;
}

export interface ApiKeySummary {
  id: string;
  label: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** Creates a key with 192 random bits; the secret is returned here and never again. */
export async function createApiKey(database: Database, clock: Clock, communityId: string, label = ''): Promise<CreatedApiKey> {
  if (!(await selectCommunity(database.db, communityId))) throw new UserInputError(`No community with id "${communityId}".`);
  if (label.length > 200) throw new UserInputError('The key label must be at most 200 characters.');
  const key = keyPrefix + randomBytes(24).toString('base64url');
  const id = newUuid();
  await insertApiKey(database.db, {
    id,
    community_id: communityId,
    label,
    key_hash: hashApiKey(key),
    created_at: clock.now(),
    last_used_at: null,
    revoked_at: null,
  });
  return { id, key, community_id: communityId };
}

/** Lists a community's keys without their secrets. */
export async function listApiKeys(database: Database, communityId: string): Promise<ApiKeySummary[]> {
  if (!(await selectCommunity(database.db, communityId))) throw new UserInputError(`No community with id "${communityId}".`);
  return (await selectApiKeys(database.db, communityId)).map((row) => ({
    id: row.id,
    label: row.label,
    created_at: toIso(row.created_at),
    last_used_at: row.last_used_at === null ? null : toIso(row.last_used_at),
    revoked_at: row.revoked_at === null ? null : toIso(row.revoked_at),
  }));
}

/** Revokes a key at once (idempotent: a second revoke keeps the first instant). */
export async function revokeApiKey(database: Database, clock: Clock, keyId: string): Promise<{ id: string; revoked_at: string }> {
  const row = await revokeApiKeyRow(database.db, keyId, clock.now());
  if (!row || row.revoked_at === null) throw new UserInputError(`No API key with id "${keyId}".`);
  return { id: row.id, revoked_at: toIso(row.revoked_at) };
}
