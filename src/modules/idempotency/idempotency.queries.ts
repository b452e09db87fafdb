import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import { preparedQuery } from '../../db/prepared-query.js';
import type { IdempotencyKeysTable } from '../../db/schema.js';
import type { ClaimIdentity } from '../../shared/idempotency-claims.js';
import type { EpochMillis } from '../../shared/time.js';

export type IdempotencyRow = Selectable<IdempotencyKeysTable>;

/** The response stored when a claimed request completes. */
export interface StoredResponseColumns {
  status_code: number;
  headers: string;
  body: string | null;
}

const claimInsert = preparedQuery(
  (db, p: { communityId: string; key: string; fingerprint: string; createdAt: EpochMillis; leaseUntil: EpochMillis }) =>
    db
      .insertInto('idempotency_keys')
      .values({
        community_id: p.communityId,
        key: p.key,
        fingerprint: p.fingerprint,
        state: 'in_flight',
        status_code: null,
        headers: null,
        body: null,
        created_at: p.createdAt,
        expires_at: p.leaseUntil,
      })
      .onConflict((oc) => oc.columns(['community_id', 'key']).doNothing()),
);

/**
 * Claims (community, key) for one request: an insert that does nothing when the row exists, so of
 * any number of concurrent claims (on any instance) exactly one inserts. True when this one did.
 * Compiled once (the claim and the stored answer are on every keyed write: docs/performance.md).
 */
export async function insertClaim(db: Db, claim: ClaimIdentity, fingerprint: string, leaseUntil: EpochMillis): Promise<boolean> {
  const { communityId, key, createdAt } = claim;
  return (await claimInsert.execute(db, { communityId, key, fingerprint, createdAt, leaseUntil })) === 1;
}

/** The row of (community, key), if any. */
export async function selectIdempotencyKey(db: Db, communityId: string, key: string): Promise<IdempotencyRow | undefined> {
  return db.selectFrom('idempotency_keys').selectAll().where('community_id', '=', communityId).where('key', '=', key).executeTakeFirst();
}

/**
 * Takes over an expired row (a stored response past its hour, or a claim whose request died) as a
 * new claim. Compare-and-set on the row as it was read, so of concurrent takeovers exactly one wins.
 */
export async function takeOverExpired(
  db: Db,
  seen: IdempotencyRow,
  claim: ClaimIdentity,
  fingerprint: string,
  leaseUntil: EpochMillis,
): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({
      fingerprint,
      state: 'in_flight',
      status_code: null,
      headers: null,
      body: null,
      created_at: claim.createdAt,
      expires_at: leaseUntil,
    })
    .where('community_id', '=', seen.community_id)
    .where('key', '=', seen.key)
    .where('state', '=', seen.state)
    .where('created_at', '=', seen.created_at)
    .where('expires_at', '=', seen.expires_at)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

const claimCompletion = preparedQuery(
  (
    db,
    p: {
      communityId: string;
      key: string;
      createdAt: EpochMillis;
      statusCode: number;
      headers: string;
      body: string | null;
      expiresAt: EpochMillis;
    },
  ) =>
    db
      .updateTable('idempotency_keys')
      .set({ state: 'done', status_code: p.statusCode, headers: p.headers, body: p.body, expires_at: p.expiresAt })
      .where('community_id', '=', p.communityId)
      .where('key', '=', p.key)
      .where('state', '=', 'in_flight')
      .where('created_at', '=', p.createdAt),
);

/** Stores the response of a claim that is still ours; false when it was taken over meanwhile. */
export async function completeClaim(
  db: Db,
  claim: ClaimIdentity,
  response: StoredResponseColumns,
  expiresAt: EpochMillis,
): Promise<boolean> {
  const { communityId, key, createdAt } = claim;
  const { status_code: statusCode, headers, body } = response;
  return (await claimCompletion.execute(db, { communityId, key, createdAt, statusCode, headers, body, expiresAt })) === 1;
}

const claimRelease = preparedQuery((db, p: { communityId: string; key: string; createdAt: EpochMillis }) =>
  db
    .deleteFrom('idempotency_keys')
    .where('community_id', '=', p.communityId)
    .where('key', '=', p.key)
    .where('state', '=', 'in_flight')
    .where('created_at', '=', p.createdAt),
);

/** Deletes a claim that is still ours, so the client may retry with the same key. */
export async function releaseClaim(db: Db, claim: ClaimIdentity): Promise<void> {
  await claimRelease.execute(db, { communityId: claim.communityId, key: claim.key, createdAt: claim.createdAt });
}

/**
 * Deletes up to `limit` rows that expired before `now`, found through the expires_at index (never a
 * full scan). The outer expires_at test is re-checked against a row taken over meanwhile, so a
 * fresh claim is never deleted. Returns how many rows went.
 */
export async function deleteExpiredBatch(db: Db, now: EpochMillis, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where('expires_at', '<', now)
    .where((eb) =>
      eb(
        eb.refTuple('community_id', 'key'),
        'in',
        eb
          .selectFrom('idempotency_keys')
          .select(['community_id', 'key'])
          .where('expires_at', '<', now)
          .limit(limit)
          .$asTuple('community_id', 'key'),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
