import type { Principal } from '../shared/principal.js';

/** Body encodings a route accepts. */
export type BodyType = 'json' | 'form';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth plugin on every /admin/v0 route that needs a key. */
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    /** No API key needed (OpenAPI document, docs, health). */
    public?: boolean;
    /** Encodings accepted for the body; any other Content-Type with a body is a 415. */
    bodyTypes?: BodyType[];
    /** Operation name used in logs and metrics. */
    operation?: string;
  }
}

/** The principal of an authenticated request; routes behind auth can rely on it. */
export function principalOf(request: { principal: Principal | null }): Principal {
  if (!request.principal) throw new Error('principalOf called on a route without authentication');
  return request.principal;
}
