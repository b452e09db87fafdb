import type { Failure } from '../shared/failures.js';
import type { Principal } from '../shared/principal.js';

/**
 * What a costed request spends of its key's cost budget (docs/idempotency-and-rate-limits.md, "Cost
 * budget"). The route admits the operation before its work (429, policy `cost`, when the key has
 * spent its budget for the window: charged what the same operation cost last time), records what
 * the work really cost when it ran (nothing for an answer served from the cache), and settles once
 * it has its answer (the difference is charged or given back).
 */
export interface CostMeter {
  /**
   * Charges the expected cost of `operation` (a key naming the same work: same community, same
   * query); throws 429 past the budget. Heavy work resolves when its turn comes (one at a time).
   */
  admit(operation: string): void | Promise<void>;
  /** True once admitted as heavy work (it holds a turn): the work should leave the event loop where it can. */
  readonly heavy: boolean;
  /** What the work cost, in units (an uncached page of posts is one); called by the code that did it. */
  record(units: number): void;
  /** Charges (or gives back) the difference between what was recorded and what was admitted, and ends the turn; must follow every admission. */
  settle(): void;
}

/** Body encodings a route accepts. */
export type BodyType = 'json' | 'form' | 'multipart';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth plugin on every /admin/v0 route that needs a key. */
    principal: Principal | null;
    /**
     * On routes with `config.idempotencyInHandler` and an Idempotency-Key: claims the key for a
     * request whose identity is `body`; true when the stored answer of an earlier request was
     * replayed (the route must then stop), false to go on.
     */
    claimIdempotencyKey: ((body: unknown) => Promise<boolean>) | null;
    /** On routes with `config.costBudget`: the key's cost meter (see CostMeter). */
    costMeter: CostMeter | null;
  }
  interface FastifyContextConfig {
    /** No API key needed (OpenAPI document, docs, health). */
    public?: boolean;
    /** Encodings accepted for the body; any other Content-Type with a body is a 415. */
    bodyTypes?: BodyType[];
    /** Operation name used in logs and metrics. */
    operation?: string;
    /** Public downloads: counted against their own per-address budget (RATE_LIMIT_DOWNLOADS_PER_SECOND), not the key-guessing one. */
    downloadBudget?: boolean;
    /** Console sign-in: counted against its own per-address budget (RATE_LIMIT_SIGN_IN_PER_MINUTE), as each one may be a guess. */
    signInBudget?: boolean;
    /** Calendar feeds: counted per token and per address (RATE_LIMIT_CALENDAR_PER_SECOND, RATE_LIMIT_CALENDAR_ADDRESS_PER_SECOND). */
    calendarBudget?: boolean;
    /**
     * The route claims its Idempotency-Key itself, with `request.claimIdempotencyKey(body)`, once it
     * knows what makes the request the same operation (a streamed upload: after reading it).
     */
    idempotencyInHandler?: boolean;
    /**
     * The answer carries a secret (a new API key's): no Idempotency-Key is claimed and no answer
     * stored, since a stored answer would keep the secret at rest for an hour; the header is ignored.
     */
    answersSecret?: boolean;
    /** The route's work varies widely in cost (a search): it spends the key's cost budget through `request.costMeter`. */
    costBudget?: boolean;
    /** The parts of a multipart/form-data body the route reads itself (documentation only: the OpenAPI requestBody). */
    documentedMultipartBody?: object;
    /**
     * Where in the request a path of a refused input is, its first segment the part (`body`,
     * `query`, `path`): for a route whose refusals are not all of its body as it came (renamed or
     * nested fields, a path or query parameter). The error handler renders a `Refused` as
     * `validation_failed` naming `<part>.<path>`; without it, `body.<path>` (src/http/error-handler.ts).
     */
    refusalPath?: (path: Failure['path']) => Failure['path'];
  }
}

/** The principal of an authenticated request; routes behind auth can rely on it. */
export function principalOf(request: { principal: Principal | null }): Principal {
  if (!request.principal) throw new Error('principalOf called on a route without authentication');
  return request.principal;
}

/** The request's parts whose names a refusal can carry, as the API's messages spell them. */
export type RequestPart = 'body' | 'query' | 'querystring' | 'path';

/**
 * A route's `refusalPath` from where its inputs' fields are: every failure in one part
 * (`'query'`: `query.<path>`), or, from a map, a failure whose path starts with a field it names
 * in that part (`{ award_id: 'path' }`: `path.award_id`) and any other in the body.
 */
export const refusalIn =
  (parts: RequestPart | Readonly<Record<string, RequestPart>>) =>
  (path: Failure['path']): Failure['path'] => {
    if (typeof parts === 'string') return [parts, ...path];
    const [first] = path;
    const part = typeof first === 'string' && Object.hasOwn(parts, first) ? parts[first] : undefined;
    return [part ?? 'body', ...path];
  };
