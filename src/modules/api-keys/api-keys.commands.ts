import { type ApiError, notFound } from '../../errors.js';
import type { ActorDeps } from '../../shared/activity.js';
import { type Clock, systemClock, toIso } from '../../shared/clock.js';
import { refuseSentence } from '../../shared/failures.js';
import { newUuid } from '../../shared/ids.js';
import {
  type KeyPermissions,
  type Permission,
  parseStoredPermissions,
  permissionNames,
  storedPermissions,
} from '../../shared/permissions.js';
import type { StorageDeps } from '../../shared/service-deps.js';
import { addMillis, type DurationMs } from '../../shared/time.js';
import { writeCommunityData } from '../../write-path/write-community-data.js';
import { selectCommunity } from '../communities/communities.queries.js';
import { communityNotFound } from '../communities/communities.reads.js';
import { insertApiKey, revokeApiKeyRow, rotateApiKeyRow, selectApiKey, updateApiKeyPermissions } from './api-keys.queries.js';
import { hashApiKey, isoOrNull, newSecret } from './api-keys.rules.js';

/** What the api-keys module's commands and reads are given (the actor: who the activity log names). */
export type ApiKeyDeps = StorageDeps & ActorDeps;

export interface CreatedApiKey {
  id: string;
  key: string;
  community_id: string;
  permissions: Permission[];
  expires_at: string | null;
}

export interface CreateApiKeyOptions {
  /** Default `all`: every permission, now and later. */
  permissions?: KeyPermissions;
  /** Lifetime from now; absent: the key never expires. */
  expiresInMs?: DurationMs;
}

/** The 404 of a key id that names none, in the operator commands' words. */
const keyNotFound = (keyId: string): ApiError => notFound('API key', `No API key with id "${keyId}".`);

/** Creates a key with 192 random bits; the secret is returned here and never again. */
export async function createApiKey(
  deps: ApiKeyDeps,
  communityId: string,
  label = '',
  options: CreateApiKeyOptions = {},
): Promise<CreatedApiKey> {
  const { database, clock } = deps;
  if (!(await selectCommunity(database.db, communityId))) throw communityNotFound(communityId);
  if (label.length > 200) throw refuseSentence(['label'], 'too_long', 'The key label must be at most 200 characters.');
  const held = options.permissions ?? 'all';
  const key = newSecret();
  const id = newUuid();
  const now = clock.now();
  const expiresAt = options.expiresInMs === undefined ? null : addMillis(now, options.expiresInMs);
  await writeCommunityData(deps, communityId, async (w) => {
    await insertApiKey(w.tx, {
      id,
      community_id: communityId,
      label,
      key_hash: hashApiKey(key),
      created_at: now,
      last_used_at: null,
      revoked_at: null,
      permissions: storedPermissions(held),
      expires_at: expiresAt,
    });
    w.record({
      action: 'api_key.created',
      target: { type: 'api_key', id, name: label },
      metadata: { permissions: held === 'all' ? 'all' : permissionNames(held), expires_at: isoOrNull(expiresAt) },
    });
  });
  return { id, key, community_id: communityId, permissions: permissionNames(held), expires_at: isoOrNull(expiresAt) };
}

/** Revokes a key at once (idempotent: a second revoke keeps the first instant). */
export async function revokeApiKey(deps: ApiKeyDeps, keyId: string): Promise<{ id: string; revoked_at: string }> {
  const before = await selectApiKey(deps.database.db, keyId);
  if (!before) throw keyNotFound(keyId);
  if (before.revoked_at !== null) return { id: before.id, revoked_at: toIso(before.revoked_at) };
  const at = deps.clock.now();
  const row = await writeCommunityData(deps, before.community_id, async (w) => {
    const after = await revokeApiKeyRow(w.tx, keyId, at);
    // Recorded only by the revoke that set it (of two at once, the other finds it revoked).
    if (after?.revoked_at === at) w.record({ action: 'api_key.revoked', target: { type: 'api_key', id: keyId, name: before.label } });
    return after;
  });
  if (!row || row.revoked_at === null) throw keyNotFound(keyId);
  return { id: row.id, revoked_at: toIso(row.revoked_at) };
}

/**
 * Gives a live key a new secret (same id, label, permissions, expiry). The secret it replaces keeps
 * working for `graceMs`; a secret replaced by an earlier rotation stops at once.
 */
export async function rotateApiKey(
  deps: ApiKeyDeps,
  keyId: string,
  graceMs: DurationMs,
): Promise<{ id: string; key: string; previous_valid_until: string }> {
  const { database, clock } = deps;
  const row = await selectApiKey(database.db, keyId);
  if (!row) throw keyNotFound(keyId);
  if (row.revoked_at !== null) throw refuseSentence(['key_id'], 'revoked', `API key "${keyId}" is revoked; create a new key instead.`);
  const now = clock.now();
  if (row.expires_at !== null && row.expires_at <= now)
    throw refuseSentence(['key_id'], 'expired', `API key "${keyId}" has expired; create a new key instead.`);
  const key = newSecret();
  const previousValidUntil = addMillis(now, graceMs);
  // Conditional on the hash read above: of two concurrent rotations one wins, the other is told to retry.
  const rotated = await writeCommunityData(deps, row.community_id, async (w) => {
    const done = await rotateApiKeyRow(w.tx, keyId, { keyHash: hashApiKey(key), previousHash: row.key_hash, previousValidUntil });
    if (done)
      w.record({
        action: 'api_key.rotated',
        target: { type: 'api_key', id: keyId, name: row.label },
        metadata: { previous_valid_until: toIso(previousValidUntil) },
      });
    return done;
  });
  if (!rotated)
    throw refuseSentence(['key_id'], 'concurrent_change', `API key "${keyId}" changed while it was being rotated; run the command again.`);
  return { id: keyId, key, previous_valid_until: toIso(previousValidUntil) };
}

/** Replaces a key's permissions (`all` or a set); every instance applies it within a second. */
export async function setApiKeyPermissions(
  deps: Pick<ApiKeyDeps, 'database' | 'actor' | 'requestContext'> & { clock?: Clock },
  keyId: string,
  held: KeyPermissions,
): Promise<{ id: string; permissions: Permission[]; all_permissions: boolean }> {
  const before = await selectApiKey(deps.database.db, keyId);
  if (!before) throw keyNotFound(keyId);
  const updated = await writeCommunityData({ ...deps, clock: deps.clock ?? systemClock }, before.community_id, async (w) => {
    if (!(await updateApiKeyPermissions(w.tx, keyId, storedPermissions(held)))) return false;
    const names = (stored: string) => (stored === 'all' ? 'all' : permissionNames(parseStoredPermissions(stored)));
    w.record({
      action: 'api_key.permissions_changed',
      target: { type: 'api_key', id: keyId, name: before.label },
      changes: { permissions: [names(before.permissions), names(storedPermissions(held))] },
    });
    return true;
  });
  if (!updated) throw keyNotFound(keyId);
  return { id: keyId, permissions: permissionNames(held), all_permissions: held === 'all' };
}
