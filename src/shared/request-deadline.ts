import { AsyncLocalStorage } from 'node:async_hooks';

/** A request's deadline as the code it runs sees it (src/http/request-deadline.ts sets it). */
export interface RequestDeadline {
  /** Set when the deadline passed before the request's write reached its commit: it answers 503 and commits nothing. */
  expired: boolean;
  /** Set when the request's write has begun its commit: its answer then waits for the commit's outcome. */
  committing: boolean;
}

/** The deadline of the request whose code is running, if any (the CLI and workers have none). */
export const requestDeadlines = new AsyncLocalStorage<RequestDeadline>();

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
 * that may be committed).
 */
export function enterCommit(): void {
  const deadline = requestDeadlines.getStore();
  if (!deadline) return;
  if (deadline.expired) throw new DeadlinePassedError();
  deadline.committing = true;
}
