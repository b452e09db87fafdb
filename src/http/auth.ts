import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import { hashApiKey } from '../modules/api-keys/api-keys.service.js';
import type { Authenticator, Principal } from '../modules/api-keys/authenticator.js';
import { andThen } from '../shared/maybe-async.js';
import type { AddressBudget, PresentedKey } from './rate-limit-address.js';
import type { GuardStep } from './request-guard.js';

/** Keys are printable ASCII without spaces; anything else cannot be a key and is not looked up. */
const plausibleKey = /^[\x21-\x7e]{16,200}$/;

/** Extracts the presented secret from `Bearer <key>` (any case) or the bare `<key>` form. */
export function presentedKey(header: string | undefined): string | null {
  if (!header) return null;
  const trimmed = header.trim();
  const match = /^bearer\s+(\S+)$/i.exec(trimmed);
  const candidate = match ? match[1] : trimmed;
  return candidate && plausibleKey.test(candidate) ? candidate : null;
}

const unauthorized = (message: string) => new ApiError('unauthorized', message, { headers: { 'www-authenticate': 'Bearer' } });

/**
 * Who is calling, for every protected route: the per-address budget for requests without a valid
 * key, then the key's principal (request.principal) or a 401. The secret is hashed once; a key
 * looked up within the last second is answered from the authenticator's cache without a promise.
 */
export function authenticationStep(authenticator: Authenticator, addresses: AddressBudget): GuardStep {
  const settle = (request: FastifyRequest, reply: FastifyReply, key: PresentedKey, principal: Principal | null) => {
    if (principal) {
      request.principal = principal;
      addresses.accepted(key);
      return;
    }
    return andThen(addresses.refused(request, reply, key), () => {
      throw unauthorized('Unknown or revoked API key.');
    });
  };

  const identify = (request: FastifyRequest, reply: FastifyReply, key: PresentedKey) => {
    const cached = authenticator.cachedPrincipal(key.hash);
    return andThen(cached === undefined ? authenticator.authenticateHash(key.hash) : cached, (principal) =>
      settle(request, reply, key, principal),
    );
  };

  return (request, reply) => {
    const header = request.headers.authorization;
    const secret = presentedKey(header);
    if (!secret) {
      return andThen(addresses.count(request, reply), () => {
        throw unauthorized(header ? 'Malformed Authorization header.' : 'Missing API key.');
      });
    }
    const key: PresentedKey = { hash: hashApiKey(secret), counted: false };
    return andThen(addresses.beforeAuth(request, reply, key), () => identify(request, reply, key));
  };
}
