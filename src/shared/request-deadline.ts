/** A request's deadline as the write path sees it (src/http/request-deadline.ts sets it; routes pass it in their deps). */
export interface RequestDeadline {
  /** Set when the deadline passed before the request's write reached its commit: it answers 503 and commits nothing. */
  expired: boolean;
  /** Set when the request's write has begun its commit: its answer then waits for the commit's outcome. */
  committing: boolean;
}

/** Raised at the commit of a write whose request ran past its deadline: the transaction rolls back. */
export class DeadlinePassedError extends Error {
  constructor() {
    super('the request ran past its deadline; its transaction was rolled back');
    this.name = 'DeadlinePassedError';
  }
}

/**
 * Called as the last step of a write's transaction, just before its commit: throws when the
 * request's deadline has passed (so the write is rolled back, as its 503 said), else marks the
 * request as committing (so its answer waits for the commit rather than saying 503 for a write
 * that may be committed). Writes outside a request (CLI, workers) have no deadline.
 */
export function enterCommit(deadline: RequestDeadline | undefined): void {
  if (!deadline) return;
  if (deadline.expired) throw new DeadlinePassedError();
  deadline.committing = true;
}

/**
 * Each request's deadline, a property of the request under a symbol of this module. It was an
 * entry of a WeakMap keyed by the request: a WeakMap entry per short-lived request is an ephemeron
 * that every scavenge must trace, which cost an uncached page of posts several percent of its CPU
 * (docs/performance.md, "Cost: per-request WeakMap entries and timers").
 */
const deadlineOf = Symbol('requestDeadline');
type Carrying = { [deadlineOf]?: RequestDeadline };

/** Gives the request its deadline (src/http/request-deadline.ts). */
export function setRequestDeadline(request: object, deadline: RequestDeadline): void {
  (request as Carrying)[deadlineOf] = deadline;
}

/**
 * The deps a route passes to a write, carrying the request's deadline so that the write path
 * rolls the write back at its commit once the deadline has passed. Passed explicitly rather than
 * through AsyncLocalStorage, which on Node 20 taxes every promise of every request.
 */
export function withDeadline<D extends object>(request: object, deps: D): D & { deadline?: RequestDeadline } {
  const deadline = (request as Carrying)[deadlineOf];
  return deadline ? { ...deps, deadline } : deps;
}
