import { hash, randomBytes } from 'node:crypto';
import { ApiError, UserInputError } from '../../errors.js';
import { toIso } from '../../shared/clock.js';
import { newUuid } from '../../shared/ids.js';
import {
  type KeyPermissions,
  type Permission,
  parseStoredPermissions,
  permissionNames,
  storedPermissions,
} from '../../shared/permissions.js';
import type { Plan } from '../../shared/plans.js';
import type { DatabaseDeps, StorageDeps } from '../../shared/service-deps.js';
import { addMillis, type DurationMs, type EpochMillis } from '../../shared/time.js';
import { selectCommunity } from '../communities/communities.queries.js';
import {
  insertApiKey,
  revokeApiKeyRow,
  rotateApiKeyRow,
  selectApiKey,
  selectApiKeys,
  selectKeyWithCommunity,
  updateApiKeyPermissions,
} from './api-keys.queries.js';

/** Prefix that makes a leaked key recognisable by secret scanners. */
const keyPrefix = 'ca_';

/** SHA-256 of a key's secret: the only form in which keys are stored (one-shot `hash`: no Hash object per request). */
export const hashApiKey = (secret: string): string => hash('sha256', secret, 'hex');

const newSecret = (): string => keyPrefix + randomBytes(24).toString('base64url');
const isoOrNull = (ms: EpochMillis | null): string | null => (ms === null ? null : toIso(ms));

export interface CreatedApiKey {
  id: string;
  key: string;
  community_id: string;
  permissions: Permission[];
  expires_at: string | null;
}

export interface ApiKeySummary {
  id: string;
  label: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  permissions: Permission[];
  /** True when the key holds `all` (every permission, including future ones). */
  all_permissions: boolean;
  expires_at: string | null;
}

export interface CreateApiKeyOptions {
  /** Default `all`: every permission, now and later. */
  permissions?: KeyPermissions;
  /** Lifetime from now; absent: the key never expires. */
  expiresInMs?: DurationMs;
}

/** Creates a key with 192 random bits; the secret is returned here and never again. */
export async function createApiKey(
  { database, clock }: StorageDeps,
  communityId: string,
  label = '',
  options: CreateApiKeyOptions = {},
): Promise<CreatedApiKey> {
  if (!(await selectCommunity(database.db, communityId))) throw new UserInputError(`No community with id "${communityId}".`);
  if (label.length > 200) throw new UserInputError('The key label must be at most 200 characters.');
  const held = options.permissions ?? 'all';
  const key = newSecret();
  const id = newUuid();
  const now = clock.now();
  const expiresAt = options.expiresInMs === undefined ? null : addMillis(now, options.expiresInMs);
  await insertApiKey(database.db, {
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
  return { id, key, community_id: communityId, permissions: permissionNames(held), expires_at: isoOrNull(expiresAt) };
}

/** Lists a community's keys without their secrets. */
export async function listApiKeys({ database }: DatabaseDeps, communityId: string): Promise<ApiKeySummary[]> {
  if (!(await selectCommunity(database.db, communityId))) throw new UserInputError(`No community with id "${communityId}".`);
  return (await selectApiKeys(database.db, communityId)).map((row) => {
    const held = parseStoredPermissions(row.permissions);
    return {
      id: row.id,
      label: row.label,
      created_at: toIso(row.created_at),
      last_used_at: isoOrNull(row.last_used_at),
      revoked_at: isoOrNull(row.revoked_at),
      permissions: permissionNames(held),
      all_permissions: held === 'all',
      expires_at: isoOrNull(row.expires_at),
    };
  });
}

/** Revokes a key at once (idempotent: a second revoke keeps the first instant). */
export async function revokeApiKey({ database, clock }: StorageDeps, keyId: string): Promise<{ id: string; revoked_at: string }> {
  const row = await revokeApiKeyRow(database.db, keyId, clock.now());
  if (!row || row.revoked_at === null) throw new UserInputError(`No API key with id "${keyId}".`);
  return { id: row.id, revoked_at: toIso(row.revoked_at) };
}

/**
 * Gives a live key a new secret (same id, label, permissions, expiry). The secret it replaces keeps
 * working for `graceMs`; a secret replaced by an earlier rotation stops at once.
 */
export async function rotateApiKey(
  { database, clock }: StorageDeps,
  keyId: string,
  graceMs: DurationMs,
): Promise<{ id: string; key: string; previous_valid_until: string }> {
  const row = await selectApiKey(database.db, keyId);
  if (!row) throw new UserInputError(`No API key with id "${keyId}".`);
  if (row.revoked_at !== null) throw new UserInputError(`API key "${keyId}" is revoked; create a new key instead.`);
  const now = clock.now();
  if (row.expires_at !== null && row.expires_at <= now)
    throw new UserInputError(`API key "${keyId}" has expired; create a new key instead.`);
  const key = newSecret();
  const previousValidUntil = addMillis(now, graceMs);
  // Conditional on the hash read above: of two concurrent rotations one wins, the other is told to retry.
  const rotated = await rotateApiKeyRow(database.db, keyId, { keyHash: hashApiKey(key), previousHash: row.key_hash, previousValidUntil });
  if (!rotated) throw new UserInputError(`API key "${keyId}" changed while it was being rotated; run the command again.`);
  return { id: keyId, key, previous_valid_until: toIso(previousValidUntil) };
}

/** Replaces a key's permissions (`all` or a set); every instance applies it within a second. */
export async function setApiKeyPermissions(
  { database }: DatabaseDeps,
  keyId: string,
  held: KeyPermissions,
): Promise<{ id: string; permissions: Permission[]; all_permissions: boolean }> {
  if (!(await updateApiKeyPermissions(database.db, keyId, storedPermissions(held))))
    throw new UserInputError(`No API key with id "${keyId}".`);
  return { id: keyId, permissions: permissionNames(held), all_permissions: held === 'all' };
}

/** The key as `GET /api_key/me` shows it (read afresh: permissions and plan as they are now). */
export async function describeApiKey({ database }: DatabaseDeps, keyId: string) {
  const row = await selectKeyWithCommunity(database.db, keyId);
  // The key authenticated within the last second; gone since means revoked and deleted with its community.
  if (!row) throw new ApiError('unauthorized', 'Unknown or revoked API key.');
  return {
    id: row.id,
    label: row.label,
    community: { id: row.community_id, name: row.community_name, plan: row.plan as Plan },
    permissions: permissionNames(parseStoredPermissions(row.permissions)),
    created_at: toIso(row.created_at),
    expires_at: isoOrNull(row.expires_at),
    last_used_at: isoOrNull(row.last_used_at),
  };
}
