import { ApiError, notFound } from '../../errors.js';
import type { ActorDeps } from '../../shared/activity.js';
import { type Clock, systemClock, toIso } from '../../shared/clock.js';
import { refuseSentence } from '../../shared/failures.js';
import { isUuid, newUuid } from '../../shared/ids.js';
import {
  firstNotHeld,
  holdsAll,
  type KeyPermissions,
  type Permission,
  parseStoredPermissions,
  permissionNames,
  permissions,
  storedPermissions,
} from '../../shared/permissions.js';
import type { StorageDeps } from '../../shared/service-deps.js';
import { addMillis, type DurationMs, type EpochMillis } from '../../shared/time.js';
import type { CommandContext, OperatorContext, TxContext } from '../../write-path/command-context.js';
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
  /** Default: none (''). */
  label?: string;
  /** Default `all`: every permission, now and later, but those never implied (api_keys:write: src/shared/permissions.ts). */
  permissions?: KeyPermissions;
  /** Lifetime from now; absent: the key never expires. */
  expiresInMs?: DurationMs;
}

/** The 404 of a key id that names none, in the operator commands' words. */
const keyNotFound = (keyId: string): ApiError => notFound('API key', `No API key with id "${keyId}".`);

/** Creates a key with 192 random bits; the secret is returned here and never again. */
export async function createApiKey(ctx: CommandContext<ApiKeyDeps>, options: CreateApiKeyOptions): Promise<CreatedApiKey> {
  const { database, clock, communityId } = ctx;
  const label = options.label ?? '';
  if (!(await selectCommunity(database.db, communityId))) throw communityNotFound(communityId);
  if (label.length > 200) throw refuseSentence(['label'], 'too_long', 'The key label must be at most 200 characters.');
  const held = options.permissions ?? 'all';
  const key = newSecret();
  const id = newUuid();
  const now = clock.now();
  const expiresAt = options.expiresInMs === undefined ? null : addMillis(now, options.expiresInMs);
  await writeCommunityData(ctx, communityId, async (w) => {
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
export async function revokeApiKey(ctx: OperatorContext<ApiKeyDeps>, keyId: string): Promise<{ id: string; revoked_at: string }> {
  const before = await selectApiKey(ctx.database.db, keyId);
  if (!before) throw keyNotFound(keyId);
  if (before.revoked_at !== null) return { id: before.id, revoked_at: toIso(before.revoked_at) };
  const at = ctx.clock.now();
  const row = await writeCommunityData(ctx, before.community_id, async (w) => {
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
  ctx: OperatorContext<ApiKeyDeps>,
  { keyId, graceMs }: { keyId: string; graceMs: DurationMs },
): Promise<{ id: string; key: string; previous_valid_until: string }> {
  const { database, clock } = ctx;
  const row = await selectApiKey(database.db, keyId);
  if (!row) throw keyNotFound(keyId);
  if (row.revoked_at !== null) throw refuseSentence(['key_id'], 'revoked', `API key "${keyId}" is revoked; create a new key instead.`);
  const now = clock.now();
  if (row.expires_at !== null && row.expires_at <= now)
    throw refuseSentence(['key_id'], 'expired', `API key "${keyId}" has expired; create a new key instead.`);
  const key = newSecret();
  const previousValidUntil = addMillis(now, graceMs);
  // Conditional on the hash read above: of two concurrent rotations one wins, the other is told to retry.
  const rotated = await writeCommunityData(ctx, row.community_id, async (w) => {
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
  ctx: Pick<ApiKeyDeps, 'database' | 'actor' | 'requestContext'> & { clock?: Clock },
  { keyId, permissions: held }: { keyId: string; permissions: KeyPermissions },
): Promise<{ id: string; permissions: Permission[]; all_permissions: boolean }> {
  const before = await selectApiKey(ctx.database.db, keyId);
  if (!before) throw keyNotFound(keyId);
  const updated = await writeCommunityData({ ...ctx, clock: ctx.clock ?? systemClock }, before.community_id, async (w) => {
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
  return { id: keyId, permissions: permissionNames(held), all_permissions: holdsAll(held) };
}

// --- The API's key management (issue 39; docs/api-keys.md, "Managing keys over the API") ---
// Each is the operator command above, for a key of the caller's community, refused when the key
// would hold (or holds) a permission the calling key does not hold itself.

/** What the calling key holds now, read afresh (a narrowing by `key set-permissions` applies at once). */
async function heldByCaller(database: ApiKeyDeps['database'], callerKeyId: string): Promise<KeyPermissions> {
  const row = await selectApiKey(database.db, callerKeyId);
  return row === undefined || row.revoked_at !== null ? new Set() : parseStoredPermissions(row.permissions);
}

/** 403 unless the caller holds everything `target` holds. */
async function requireHeldByCaller(
  database: ApiKeyDeps['database'],
  callerKeyId: string,
  target: KeyPermissions,
  action: string,
): Promise<void> {
  const missing = firstNotHeld(await heldByCaller(database, callerKeyId), target);
  if (missing === null) return;
  const what = missing === 'all' ? '`all` (every permission, including future ones)' : `the permission ${missing}`;
  throw new ApiError('insufficient_scope', `This key cannot ${action} a key holding ${what}, which it does not hold itself.`, {
    hint: 'Use a key that holds every permission of the key in question, or name fewer permissions.',
  });
}

/** A live key of the caller's community, or the 404 of a missing one (another community's and revoked keys alike). */
async function liveKeyOfCommunity(database: ApiKeyDeps['database'], communityId: string, keyId: string) {
  const row = isUuid(keyId) ? await selectApiKey(database.db, keyId.toLowerCase()) : undefined;
  if (!row || row.community_id !== communityId || row.revoked_at !== null) throw notFound('API key');
  return row;
}

/*
 * The caller's community is the context's; `callerKeyId` names the calling key (the principal's),
 * whose permissions bound what it may hand out or touch.
 */

/** `POST /api_keys`: a key of the caller's community holding at most what the caller holds; the secret once. */
export async function createApiKeyAs(
  ctx: CommandContext<ApiKeyDeps>,
  input: { callerKeyId: string; label: string; permissions: KeyPermissions; expiresInMs?: DurationMs },
): Promise<CreatedApiKey> {
  await requireHeldByCaller(ctx.database, input.callerKeyId, input.permissions, 'create');
  return createApiKey(ctx, { label: input.label, permissions: input.permissions, expiresInMs: input.expiresInMs });
}

/** `POST /api_keys/{id}/rotate`: a new secret for a key of the caller's community that holds nothing the caller lacks. */
export async function rotateApiKeyAs(
  ctx: CommandContext<ApiKeyDeps>,
  { callerKeyId, keyId, graceMs }: { callerKeyId: string; keyId: string; graceMs: DurationMs },
): Promise<{ id: string; key: string; previous_valid_until: string }> {
  const row = await liveKeyOfCommunity(ctx.database, ctx.communityId, keyId);
  await requireHeldByCaller(ctx.database, callerKeyId, parseStoredPermissions(row.permissions), 'rotate');
  return rotateApiKey(ctx, { keyId: row.id, graceMs });
}

/** `DELETE /api_keys/{id}`: revokes a key of the caller's community that holds nothing the caller lacks (itself included). */
export async function revokeApiKeyAs(
  ctx: CommandContext<ApiKeyDeps>,
  { callerKeyId, keyId }: { callerKeyId: string; keyId: string },
): Promise<{ id: string; revoked_at: string }> {
  const row = await liveKeyOfCommunity(ctx.database, ctx.communityId, keyId);
  if (row.id !== callerKeyId) await requireHeldByCaller(ctx.database, callerKeyId, parseStoredPermissions(row.permissions), 'revoke');
  return revokeApiKey(ctx, row.id);
}

/** The label of every console session's key, as `key list` shows it. */
export const consoleSessionLabel = 'Console session';

/**
 * A console session's key (docs/console.md), inserted in the sign-in's transaction: kind `console`,
 * every permission of the catalogue listed by name (not `all`: a permission added later is not
 * held by sessions already open, and `api_keys:write`, never implied, is held because it is
 * listed), expiring `lifetimeMs` after `now`. The community is the caller's to have checked.
 */
export async function createConsoleSessionKey(
  ctx: Pick<TxContext, 'tx' | 'communityId'>,
  { now, lifetimeMs }: { now: EpochMillis; lifetimeMs: DurationMs },
): Promise<CreatedApiKey & { expires_at: string }> {
  const { tx, communityId } = ctx;
  const held: KeyPermissions = new Set(permissions);
  const key = newSecret();
  const id = newUuid();
  const expiresAt = addMillis(now, lifetimeMs);
  await insertApiKey(tx, {
    id,
    community_id: communityId,
    label: consoleSessionLabel,
    key_hash: hashApiKey(key),
    created_at: now,
    last_used_at: null,
    revoked_at: null,
    permissions: storedPermissions(held),
    expires_at: expiresAt,
    kind: 'console',
  });
  return { id, key, community_id: communityId, permissions: permissionNames(held), expires_at: toIso(expiresAt) };
}
