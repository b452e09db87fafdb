import type { GuardStep } from './request-guard.js';

/** What a browser may send cross-origin: the API's methods and the headers its clients set. */
const allowMethods = 'GET, POST, PATCH, DELETE';
const allowHeaders = 'Authorization, Content-Type, Idempotency-Key, X-Request-Id';
/** Response headers a browser script may read besides the CORS-safelisted ones. */
const exposeHeaders =
  'X-Request-Id, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, RateLimit-Policy, RateLimit, Retry-After, X-Idempotent-Replayed';
/** How long a browser may cache a preflight answer. */
const preflightMaxAgeSeconds = 600;

/**
 * CORS, closed unless CORS_ORIGINS lists origins. Closed means no step at all: no response carries
 * an Access-Control-* header, and a preflight (OPTIONS) falls through to the JSON 404/405 like any
 * other unknown method. Open, exactly the listed origins get Access-Control-Allow-Origin (never
 * `*`, never credentials: keys travel in the Authorization header, which needs no cookies), and
 * their preflights under /admin/v0 are answered 204 before authentication (browsers send no
 * Authorization on a preflight). Every answer then varies on Origin.
 */
export function corsSteps(origins: readonly string[]): GuardStep[] {
  if (origins.length === 0) return [];
  const allowed = new Set(origins);
  const step: GuardStep = (request, reply) => {
    reply.header('vary', 'Origin');
    const origin = request.headers.origin;
    if (typeof origin !== 'string' || !allowed.has(origin)) return;
    reply.header('access-control-allow-origin', origin);
    const preflight = request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined;
    if (preflight && request.url.startsWith('/admin/v0/')) {
      reply.header('access-control-allow-methods', allowMethods);
      reply.header('access-control-allow-headers', allowHeaders);
      reply.header('access-control-max-age', String(preflightMaxAgeSeconds));
      reply.code(204).send();
      return;
    }
    reply.header('access-control-expose-headers', exposeHeaders);
  };
  return [step];
}
