import type { Actor, RequestContext } from '../shared/activity.js';
import type { Principal } from '../shared/principal.js';
import { withDeadline } from '../shared/request-deadline.js';
import type { CommandContext } from '../write-path/command-context.js';
import type { WriteDeps } from '../write-path/write-community-data.js';
import { principalOf } from './request-context.js';

/** What a request hands its command: the request's deadline, who acts, and where from. */
interface RequestLike {
  id: string;
  ip: string;
  headers: Record<string, string | string[] | undefined>;
  principal: Principal | null;
}

/** The actor of an API request: its key, or the console session (a key of kind `console`). The one place the principal becomes an actor. */
function actorOf(principal: Principal): Actor {
  return { type: principal.kind === 'console' ? 'console' : 'api_key', id: principal.keyId, label: principal.keyLabel ?? null };
}

/** Where a request came from, as its records keep it (the address as the app sees it: TRUST_PROXY applies). */
export function requestContextOf(request: Pick<RequestLike, 'id' | 'ip' | 'headers'>): RequestContext {
  const agent = request.headers['user-agent'];
  return { request_id: request.id, ip: request.ip || null, user_agent: typeof agent === 'string' ? agent.slice(0, 512) : null };
}

/**
 * The context a route passes to a command (`command(ctx, input)`, src/write-path/command-context.ts):
 * the services, the request's deadline (the write rolls back at its commit once it has passed,
 * src/shared/request-deadline.ts), the actor and request context its activity records name
 * (docs/activity.md), and the caller's community.
 */
export function commandContext<D extends WriteDeps>(request: RequestLike, deps: D): CommandContext<D> {
  const principal = principalOf(request);
  return {
    ...withDeadline(request, deps),
    actor: actorOf(principal),
    requestContext: requestContextOf(request),
    communityId: principal.communityId,
  };
}
