// What the idempotency store (src/modules/idempotency/) and the HTTP plumbing that uses it
// (src/http/idempotency.ts) say to each other: here, below both, so that src/http names no module.
import type { EpochMillis } from './time.js';

/** Identifies one claim: the row of (community, key) as long as it still has this created_at and is in flight. */
export interface ClaimIdentity {
  communityId: string;
  key: string;
  createdAt: EpochMillis;
}

/** A stored response as it is replayed. */
export interface StoredResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string | null;
}

/** What a request carrying an Idempotency-Key gets when it tries to claim it. */
export type ClaimOutcome =
  | { kind: 'claimed'; claim: ClaimIdentity }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'in_flight'; retryAfterSeconds: number }
  | { kind: 'reused' };
