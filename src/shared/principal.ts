import type { KeyPermissions } from './permissions.js';
import type { Plan } from './plans.js';

/** What made a key: `key create` (or the API), or signing in to the console (a console session, docs/console.md). */
export type KeyKind = 'key' | 'console';

/** Who is calling: the key, the community it belongs to, and what the key may do. */
export interface Principal {
  keyId: string;
  communityId: string;
  plan: Plan;
  permissions: KeyPermissions;
  /** `console`: the caller is a person signed in to the console; `key`: an API key. */
  kind: KeyKind;
  /** The key's label, which the activity log names its actor by (absent where a principal is made without it). */
  keyLabel?: string;
}

/**
 * Why a presented secret is refused: unknown (or revoked), its key expired, or it is a secret that
 * a rotation replaced and whose grace period has ended.
 */
export type KeyRefusal = 'unknown' | 'expired' | 'rotated';

/** The outcome of presenting a secret: the principal, or why it is refused. */
export type KeyCheck = Principal | KeyRefusal;

/**
 * How the HTTP layer finds the principal of a presented key (implemented by the api-keys module,
 * wired in app.ts). Keys are looked up by a hash of the secret, never by the secret itself.
 */
export interface PrincipalLookup {
  /** The hash a secret is looked up by. */
  hashOf(secret: string): string;
  /** The outcome for a hash while its lookup is cached, undefined when it must be looked up. */
  cachedPrincipal(hash: string): KeyCheck | undefined;
  /** The outcome for a hash, looked up unless cached. */
  authenticateHash(hash: string): Promise<KeyCheck>;
}
