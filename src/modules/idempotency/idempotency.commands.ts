import type { Database } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import type { ClaimIdentity, ClaimOutcome, StoredResponse } from '../../shared/idempotency-claims.js';
import { addMillis, type DurationMs, durationMs } from '../../shared/time.js';
import {
  completeClaim,
  deleteExpiredBatch,
  type IdempotencyRow,
  insertClaim,
  releaseClaim,
  selectIdempotencyKey,
  takeOverExpired,
} from './idempotency.queries.js';

/** How long a completed response is replayed (the spec's cache lifetime). */
const idempotencyTtlMs = durationMs(60 * 60 * 1000);
/**
 * How long an in-flight claim holds its key when nothing completes or releases it (the process
 * died mid-request), never renewed; after it, a new request takes the key over. The server sets
 * it from REQUEST_DEADLINE_MS (app.ts); this default serves other callers.
 */
const defaultLeaseMs = durationMs(60_000);
/** Housekeeping runs at most this often per instance, in small batches through the expires_at index. */
const purgeIntervalMs = durationMs(30_000);
const purgeBatchSize = 500;
const maxBatchesPerPurge = 20;
/** A claim loses a race at most a few times (row released or taken over between two statements). */
const maxClaimAttempts = 5;

export interface IdempotencyOptions {
  leaseMs?: DurationMs;
  ttlMs?: DurationMs;
}

function parseHeaders(text: string | null): Record<string, string> {
  const parsed: unknown = text ? JSON.parse(text) : {};
  const headers: Record<string, string> = {};
  if (typeof parsed !== 'object' || parsed === null) return headers;
  for (const [name, value] of Object.entries(parsed)) if (typeof value === 'string') headers[name] = value;
  return headers;
}

/** Claims, completes, releases and purges idempotency keys; no HTTP here, only rows and time. */
export class IdempotencyService {
  private readonly leaseMs: DurationMs;
  private readonly ttlMs: DurationMs;
  private lastPurgeAt = Number.NEGATIVE_INFINITY;
  private purging = false;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    options: IdempotencyOptions = {},
  ) {
    this.leaseMs = options.leaseMs ?? defaultLeaseMs;
    this.ttlMs = options.ttlMs ?? idempotencyTtlMs;
  }

  /** Claims (community, key) for a request with this fingerprint, or says why it cannot run. */
  async claim(communityId: string, key: string, fingerprint: string): Promise<ClaimOutcome> {
    const db = this.database.db;
    for (let attempt = 0; attempt < maxClaimAttempts; attempt++) {
      const now = this.clock.now();
      const claim: ClaimIdentity = { communityId, key, createdAt: now };
      const leaseUntil = addMillis(now, this.leaseMs);
      if (await insertClaim(db, claim, fingerprint, leaseUntil)) return { kind: 'claimed', claim };
      const row = await selectIdempotencyKey(db, communityId, key);
      // Released or purged between the two statements: try the insert again.
      if (!row) continue;
      if (row.expires_at <= now) {
        if (await takeOverExpired(db, row, claim, fingerprint, leaseUntil)) return { kind: 'claimed', claim };
        continue;
      }
      return this.outcomeOf(row, fingerprint);
    }
    throw new Error(`idempotency key claim did not settle after ${maxClaimAttempts} attempts`);
  }

  /** Stores the response of a claim for the replay lifetime; false if the claim was lost meanwhile. */
  async complete(claim: ClaimIdentity, response: StoredResponse): Promise<boolean> {
    const expiresAt = addMillis(this.clock.now(), this.ttlMs);
    const columns = { status_code: response.statusCode, headers: JSON.stringify(response.headers), body: response.body };
    return completeClaim(this.database.db, claim, columns, expiresAt);
  }

  /** Gives the key up so that the client can retry (after a 5xx, or a response that cannot be stored). */
  async release(claim: ClaimIdentity): Promise<void> {
    await releaseClaim(this.database.db, claim);
  }

  /** Starts a purge when the last one is at least the interval old and none is running; else null. */
  purgeIfDue(): Promise<number> | null {
    const now = this.clock.now();
    if (this.purging || now - this.lastPurgeAt < purgeIntervalMs) return null;
    this.lastPurgeAt = now;
    this.purging = true;
    return this.purgeExpired(now).finally(() => {
      this.purging = false;
    });
  }

  /** Deletes rows that expired before `now`, batch by batch, up to a bounded number of batches. */
  async purgeExpired(now = this.clock.now()): Promise<number> {
    let total = 0;
    for (let batch = 0; batch < maxBatchesPerPurge; batch++) {
      const deleted = await deleteExpiredBatch(this.database.db, now, purgeBatchSize);
      total += deleted;
      if (deleted < purgeBatchSize) break;
    }
    return total;
  }

  private outcomeOf(row: IdempotencyRow, fingerprint: string): ClaimOutcome {
    if (row.fingerprint !== fingerprint) return { kind: 'reused' };
    if (row.state === 'in_flight' || row.status_code === null) return { kind: 'in_flight', retryAfterSeconds: 1 };
    return { kind: 'replay', response: { statusCode: row.status_code, headers: parseHeaders(row.headers), body: row.body } };
  }
}
