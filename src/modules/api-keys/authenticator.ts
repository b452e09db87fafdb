import type { Database } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { isPlan, type Plan } from '../../shared/plans.js';
import { selectPrincipalByHash, touchApiKey } from './api-keys.queries.js';
import { hashApiKey } from './api-keys.service.js';

/** Who is calling: the key and the community it belongs to. */
export interface Principal {
  keyId: string;
  communityId: string;
  plan: Plan;
}

interface CacheEntry {
  principal: Principal | null;
  expiresAt: number;
}

/** How long a looked-up key (or its absence) is trusted; bounds how long a revocation takes to bite. */
const cacheTtlMs = 1000;
const touchIntervalMs = 60_000;
const maxCacheEntries = 10_000;

/**
 * Resolves API keys to principals. Lookups go by SHA-256 of the presented secret through a unique
 * index, so no secret is ever compared byte by byte; results are cached for at most one second,
 * so a key revoked on any instance is refused everywhere within a second.
 */
export class Authenticator {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly lastTouched = new Map<string, number>();

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
  ) {}

  /** The principal of a presented secret, or null when the key is unknown or revoked. */
  async authenticate(secret: string): Promise<Principal | null> {
    return this.authenticateHash(hashApiKey(secret));
  }

  /**
   * The principal of a key by the SHA-256 of its secret while the lookup is cached: null for a
   * refused key, undefined when it must be looked up (authenticateHash). Synchronous, so that a
   * request whose key was seen within the last second costs no promise.
   */
  cachedPrincipal(hash: string): Principal | null | undefined {
    const cached = this.cache.get(hash);
    return cached && cached.expiresAt > this.clock.now() ? cached.principal : undefined;
  }

  /** The principal of a key by the SHA-256 of its secret, looked up unless cached; null when unknown or revoked. */
  async authenticateHash(hash: string): Promise<Principal | null> {
    const cached = this.cachedPrincipal(hash);
    if (cached !== undefined) return cached;
    const now = this.clock.now();
    const row = await selectPrincipalByHash(this.database.db, hash);
    const principal =
      row && row.revoked_at === null && isPlan(row.plan) ? { keyId: row.key_id, communityId: row.community_id, plan: row.plan } : null;
    if (this.cache.size >= maxCacheEntries) this.cache.clear();
    this.cache.set(hash, { principal, expiresAt: now + cacheTtlMs });
    if (principal) this.touch(principal.keyId, row?.last_used_at ?? null, now);
    return principal;
  }

  /** Updates last_used_at at most once a minute per key, off the request's critical path. */
  private touch(keyId: string, lastUsedAt: number | null, now: number): void {
    const last = Math.max(this.lastTouched.get(keyId) ?? 0, lastUsedAt ?? 0);
    if (now - last < touchIntervalMs) return;
    this.lastTouched.set(keyId, now);
    touchApiKey(this.database.db, keyId, now).catch(() => {
      // A failed bookkeeping write must never fail the request; the next use retries it.
      this.lastTouched.delete(keyId);
    });
  }
}
