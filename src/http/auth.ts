import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import { andThen } from '../shared/maybe-async.js';
import type { KeyCheck, PrincipalLookup } from '../shared/principal.js';
import type { AddressBudget, PresentedKey } from './rate-limit-address.js';
import type { GuardStep } from './request-guard.js';

/** Keys are printable ASCII without spaces; anything else cannot be a key and is not looked up. */
const plausibleKey = /^[\x21-\x7e]{16,200}$/;

/** Extracts the presented secret from `Bearer <key>` (any case) or the bare `<key>` form. */
function presentedKey(header: string | undefined): string | null {
  if (!header) return null;
  const trimmed = header.trim();
  const match = /^bearer\s+(\S+)$/i.exec(trimmed);
  const candidate = match ? match[1] : trimmed;
  return candidate && plausibleKey.test(candidate) ? candidate : null;
}

const unauthorized = (message: string) => new ApiError('unauthorized', message, { headers: { 'www-authenticate': 'Bearer' } });

/** The 401 of a refused key: unknown or revoked, expired, or a secret replaced by a rotation whose grace has ended. */
function refusal(check: Exclude<KeyCheck, object>): ApiError {
  if (check === 'unknown') return unauthorized('Unknown or revoked API key.');
  const headers = { 'www-authenticate': 'Bearer error="invalid_token"' };
  return check === 'expired'
    ? new ApiError('api_key_expired', 'This API key has expired.', { headers })
    : new ApiError('api_key_expired', 'This secret was replaced by a key rotation and its grace period has ended.', {
        headers,
        hint: "Use the key's new secret (printed by community-admin key rotate).",
      });
}

/**
 * Who is calling, for every protected route: the per-address budget for requests without a valid
 * key, then the key's principal (request.principal) or a 401. The secret is hashed once; a key
 * looked up within the last second is answered from the authenticator's cache without a promise.
 */
export function authenticationStep(authenticator: PrincipalLookup, addresses: AddressBudget): GuardStep {
  const settle = (request: FastifyRequest, reply: FastifyReply, key: PresentedKey, check: KeyCheck) => {
    if (typeof check !== 'string') {
      request.principal = check;
      addresses.accepted(key);
      return;
    }
    return andThen(addresses.refused(request, reply, key), () => {
      throw refusal(check);
    });
  };

  const identify = (request: FastifyRequest, reply: FastifyReply, key: PresentedKey) => {
    const cached = authenticator.cachedPrincipal(key.hash);
    return andThen(cached === undefined ? authenticator.authenticateHash(key.hash) : cached, (check) => settle(request, reply, key, check));
  };

  return (request, reply) => {
    const header = request.headers.authorization;
    const secret = presentedKey(header);
    if (!secret) {
      return andThen(addresses.count(request, reply), () => {
        throw unauthorized(header ? 'Malformed Authorization header.' : 'Missing API key.');
      });
    }
    const key: PresentedKey = { hash: authenticator.hashOf(secret), counted: false };
    return andThen(addresses.beforeAuth(request, reply, key), () => identify(request, reply, key));
  };
}
