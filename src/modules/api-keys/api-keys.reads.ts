import type { Database } from '../../db/database.js';
import { ApiError } from '../../errors.js';
import { type PageMeta, pageOf } from '../../schemas/json-text.js';
import type { Clock } from '../../shared/clock.js';
import { toIso } from '../../shared/clock.js';
import { holdsAll, type Permission, parseStoredPermissions, permissionNames } from '../../shared/permissions.js';
import { isPlan, type Plan } from '../../shared/plans.js';
import type { KeyCheck, KeyKind, KeyRefusal, Principal, PrincipalLookup } from '../../shared/principal.js';
import { addMillis, durationMs, type EpochMillis, epochMillis } from '../../shared/time.js';
import { selectCommunity } from '../communities/communities.queries.js';
import { communityNotFound } from '../communities/communities.reads.js';
import type { ApiKeyDeps } from './api-keys.commands.js';
import { selectApiKeys, selectKeyWithCommunity, selectLiveApiKeysPage, selectPrincipalByHash, touchApiKey } from './api-keys.queries.js';
import { hashApiKey, isoOrNull } from './api-keys.rules.js';

export type { KeyCheck, KeyRefusal, Principal };

export interface ApiKeySummary {
  id: string;
  label: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  permissions: Permission[];
  /** True when the key holds `all` (every permission, including future ones, but api_keys:write unless named besides). */
  all_permissions: boolean;
  expires_at: string | null;
  /** `console`: a console session's key (docs/console.md); `key`: any other. */
  kind: KeyKind;
}

/** Lists a community's keys without their secrets. */
export async function listApiKeys({ database }: Pick<ApiKeyDeps, 'database'>, communityId: string): Promise<ApiKeySummary[]> {
  if (!(await selectCommunity(database.db, communityId))) throw communityNotFound(communityId);
  return (await selectApiKeys(database.db, communityId)).map((row) => {
    const held = parseStoredPermissions(row.permissions);
    return {
      id: row.id,
      label: row.label,
      created_at: toIso(row.created_at),
      last_used_at: isoOrNull(row.last_used_at),
      revoked_at: isoOrNull(row.revoked_at),
      permissions: permissionNames(held),
      all_permissions: holdsAll(held),
      expires_at: isoOrNull(row.expires_at),
      kind: row.kind,
    };
  });
}

/** A key as the API's list shows it (`GET /api_keys`): never its secret. */
export interface ApiKeyRecord {
  id: string;
  label: string;
  kind: KeyKind;
  permissions: Permission[];
  all_permissions: boolean;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
}

/** `GET /api_keys`: a page of the community's live keys (revoked ones are left out), oldest first. */
export async function listLiveApiKeys(
  { database }: Pick<ApiKeyDeps, 'database'>,
  communityId: string,
  page: number,
  perPage: number,
): Promise<PageMeta & { records: ApiKeyRecord[] }> {
  const { rows, total } = await selectLiveApiKeysPage(database.db, communityId, perPage, page * perPage);
  const records = rows.map((row) => {
    const held = parseStoredPermissions(row.permissions);
    return {
      id: row.id,
      label: row.label,
      kind: row.kind,
      permissions: permissionNames(held),
      all_permissions: holdsAll(held),
      created_at: toIso(row.created_at),
      expires_at: isoOrNull(row.expires_at),
      last_used_at: isoOrNull(row.last_used_at),
    };
  });
  return pageOf(page, perPage, total, records);
}

/** The key as `GET /api_key/me` shows it (read afresh: permissions and plan as they are now). */
export async function describeApiKey({ database }: Pick<ApiKeyDeps, 'database'>, keyId: string) {
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

interface CacheEntry {
  principal: Principal | null;
  /** The secret stops working at this instant (key expiry, or the end of a rotation's grace). */
  validUntil: EpochMillis;
  /** Why it stops: `expired` (the key) or `rotated` (a replaced secret). */
  endReason: 'expired' | 'rotated';
  cachedUntil: EpochMillis;
}

/** How long a looked-up key (or its absence) is trusted; bounds how long a revocation takes to bite. */
const cacheTtlMs = durationMs(1000);
const touchIntervalMs = durationMs(60_000);
const maxCacheEntries = 10_000;
/** The validity of a secret that neither expires nor was replaced. */
const never = epochMillis(Number.POSITIVE_INFINITY);

/**
 * Resolves API keys to principals. Lookups go by SHA-256 of the presented secret through a unique
 * index, so no secret is ever compared byte by byte; results are cached for at most one second,
 * so a key revoked, or given other permissions, on any instance is seen everywhere within a
 * second. Expiry is judged against the clock on every request, so it bites at the exact instant.
 */
export class Authenticator implements PrincipalLookup {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly lastTouched = new Map<string, EpochMillis>();

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
  ) {}

  /**
   * Forgets what is cached of a key (by id), so that a revocation made through this instance bites
   * on its very next request; other instances see it within their cache's second.
   */
  forget(keyId: string): void {
    for (const [hash, entry] of this.cache) if (entry.principal?.keyId === keyId) this.cache.delete(hash);
  }

  /** The principal of a presented secret, or why it is refused. */
  async authenticate(secret: string): Promise<KeyCheck> {
    return this.authenticateHash(hashApiKey(secret));
  }

  /** The SHA-256 of a secret, which keys are stored and looked up by. */
  hashOf(secret: string): string {
    return hashApiKey(secret);
  }

  /**
   * The outcome for a key by the SHA-256 of its secret while the lookup is cached, undefined when it
   * must be looked up (authenticateHash). Synchronous, so that a request whose key was seen within
   * the last second costs no promise.
   */
  cachedPrincipal(hash: string): KeyCheck | undefined {
    const cached = this.cache.get(hash);
    if (!cached) return undefined;
    const now = this.clock.now();
    return cached.cachedUntil > now ? judge(cached, now) : undefined;
  }

  /** The outcome for a key by the SHA-256 of its secret, looked up unless cached. */
  async authenticateHash(hash: string): Promise<KeyCheck> {
    const cached = this.cachedPrincipal(hash);
    if (cached !== undefined) return cached;
    const now = this.clock.now();
    const row = await selectPrincipalByHash(this.database.db, hash);
    const live = row && row.revoked_at === null && isPlan(row.plan) ? row : undefined;
    // SQLite answers 1/0, PostgreSQL true/false (null when the key was never rotated).
    const previous = Boolean(live?.by_previous);
    const entry: CacheEntry = {
      principal: live
        ? {
            keyId: live.key_id,
            communityId: live.community_id,
            plan: live.plan as Plan,
            permissions: parseStoredPermissions(live.permissions),
            kind: live.kind,
            keyLabel: live.label,
          }
        : null,
      ...validity(live, previous),
      cachedUntil: addMillis(now, cacheTtlMs),
    };
    if (this.cache.size >= maxCacheEntries) this.cache.clear();
    this.cache.set(hash, entry);
    const outcome = judge(entry, now);
    if (typeof outcome !== 'string') this.touch(outcome.keyId, row?.last_used_at ?? null, now);
    return outcome;
  }

  /** Updates last_used_at at most once a minute per key, off the request's critical path. */
  private touch(keyId: string, lastUsedAt: EpochMillis | null, now: EpochMillis): void {
    const last = Math.max(this.lastTouched.get(keyId) ?? 0, lastUsedAt ?? 0);
    if (now - last < touchIntervalMs) return;
    this.lastTouched.set(keyId, now);
    touchApiKey(this.database.db, keyId, now).catch(() => {
      // A failed bookkeeping write must never fail the request; the next use retries it.
      this.lastTouched.delete(keyId);
    });
  }
}

/** Until when a looked-up secret works, and what ends it: the earlier of the key's expiry and a rotation's grace. */
function validity(
  row: { expires_at: EpochMillis | null; previous_valid_until: EpochMillis | null } | undefined,
  previous: boolean,
): Pick<CacheEntry, 'validUntil' | 'endReason'> {
  const expiresAt = row?.expires_at === null || row === undefined ? never : epochMillis(Number(row.expires_at));
  const graceEnd = previous ? epochMillis(Number(row?.previous_valid_until ?? 0)) : never;
  return graceEnd < expiresAt ? { validUntil: graceEnd, endReason: 'rotated' } : { validUntil: expiresAt, endReason: 'expired' };
}

function judge(entry: CacheEntry, now: EpochMillis): KeyCheck {
  if (!entry.principal) return 'unknown';
  return now < entry.validUntil ? entry.principal : entry.endReason;
}
