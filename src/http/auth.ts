import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import type { Authenticator } from '../modules/api-keys/authenticator.js';

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

/** Sets request.principal from the API key on every non-public route, or answers 401. */
export function registerAuth(app: FastifyInstance, authenticator: Authenticator): void {
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (request: FastifyRequest) => {
    // Unknown routes have no url here: they fall through to the JSON 404/405 handler.
    if (!request.routeOptions.url || request.routeOptions.config.public) return;
    const header = request.headers.authorization;
    if (!header) throw unauthorized('Missing API key.');
    const secret = presentedKey(header);
    if (!secret) throw unauthorized('Malformed Authorization header.');
    const principal = await authenticator.authenticate(secret);
    if (!principal) throw unauthorized('Unknown or revoked API key.');
    request.principal = principal;
  });
}
