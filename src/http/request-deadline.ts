import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import { type RequestDeadline, setRequestDeadline } from '../shared/request-deadline.js';
import type { DurationMs } from '../shared/time.js';
import { deadlinePassed } from './error-handler.js';

interface Pending {
  deadline: RequestDeadline;
  /** When it expires (ms since the epoch). */
  at: number;
  /** True once expire has run: it runs once. */
  fired: boolean;
  expire: () => void;
}

/**
 * The requests in flight of one app, with one timer for all of them: armed for the earliest
 * deadline, it fires about once a deadline whatever the rate of requests, where a timer per request
 * was set and cleared on every one (docs/performance.md, "Cost: per-request WeakMap entries and
 * timers").
 */
class Deadlines {
  /** In arrival order, which is deadline order except after a hurry. */
  readonly live = new Set<Pending>();
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Number.POSITIVE_INFINITY;

  add(pending: Pending): void {
    this.live.add(pending);
    this.arm(pending.at);
  }

  /** Fires at `at` at the latest (sooner when an earlier deadline is already armed). */
  arm(at: number): void {
    if (this.timer !== undefined && this.timerAt <= at) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => this.sweep(), Math.max(0, at - Date.now()));
    this.timer.unref();
  }

  /** Expires every request past its deadline, then arms the timer for the earliest one left. */
  private sweep(): void {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    const now = Date.now();
    let next = Number.POSITIVE_INFINITY;
    for (const pending of this.live) {
      if (pending.fired) continue;
      if (pending.at <= now) {
        pending.fired = true;
        pending.expire();
      } else if (pending.at < next) next = pending.at;
    }
    if (next !== Number.POSITIVE_INFINITY) this.arm(next);
  }
}

/** The requests in flight of each app, so that a stop can bring their deadlines forward. */
const inFlight = new WeakMap<FastifyInstance, Deadlines>();

/** How many requests of the app are still waiting for their answer. */
export function inFlightRequests(app: FastifyInstance): number {
  return inFlight.get(app)?.live.size ?? 0;
}

/**
 * Brings every in-flight request's deadline to at most `withinMs` from now: a graceful stop during
 * an outage answers what it can (503 request_timeout) within its grace instead of waiting out each
 * request's full deadline.
 */
export function hurryRequests(app: FastifyInstance, withinMs: DurationMs): void {
  const deadlines = inFlight.get(app);
  if (!deadlines) return;
  const at = Date.now() + withinMs;
  let hurried = false;
  for (const pending of deadlines.live) {
    if (pending.at <= at) continue;
    pending.at = at;
    hurried = true;
  }
  if (hurried) deadlines.arm(at);
}

/**
 * REQUEST_DEADLINE_MS: no request runs longer than this from the moment its headers arrived. Past
 * it, the request answers 503 request_timeout (which releases its Idempotency-Key) and its write,
 * if it has not begun committing, is rolled back at its commit (src/shared/request-deadline.ts); a
 * write already committing is waited for (its answer must say what happened), and that wait is
 * bounded by the database's statement timeout. What the route returns after the deadline is dropped.
 */
export function registerRequestDeadline(app: FastifyInstance, deadlineMs: DurationMs, exempt: (url: string) => boolean): void {
  // Each request's state, a property of the request, not a WeakMap entry (see setRequestDeadline).
  const stateOf = Symbol('deadlineState');
  type Carrying = { [stateOf]?: Pending };
  const pendingOf = (request: FastifyRequest) => (request as Carrying)[stateOf];
  const deadlines = new Deadlines();
  inFlight.set(app, deadlines);
  const expire = (request: FastifyRequest, reply: FastifyReply, deadline: RequestDeadline) => {
    // A streamed answer whose headers are out (an activity export) can no longer become a 503.
    if (reply.sent || reply.raw.headersSent || deadline.committing || request.raw.destroyed) return;
    deadline.expired = true;
    request.log.warn({ deadline_ms: deadlineMs }, 'request ran past its deadline: answering 503');
    reply.send(deadlinePassed());
  };
  const clear = (request: FastifyRequest) => {
    const state = pendingOf(request);
    if (state) deadlines.live.delete(state);
  };

  app.addHook('onRequest', (request, reply, done) => {
    if (exempt(request.url)) return done();
    const deadline: RequestDeadline = { expired: false, committing: false };
    const state: Pending = { deadline, at: Date.now() + deadlineMs, fired: false, expire: () => expire(request, reply, deadline) };
    (request as Carrying)[stateOf] = state;
    setRequestDeadline(request, deadline);
    deadlines.add(state);
    done();
  });
  app.addHook('onResponse', (request, _reply, done) => {
    clear(request);
    done();
  });
  app.addHook('onRequestAbort', (request, done) => {
    clear(request);
    done();
  });
  app.addHook('onRoute', (route) => {
    const handler = route.handler as RouteHandlerMethod;
    route.handler = function withDeadline(this: FastifyInstance, request, reply) {
      const result: unknown = handler.call(this, request, reply);
      if (!(result instanceof Promise)) return result;
      const expired = () => pendingOf(request)?.deadline.expired === true;
      return result.then(
        (payload: unknown) => (expired() ? undefined : payload),
        (error: unknown) => {
          // Already answered 503: the late outcome (usually the rolled-back commit) has no one to go to.
          if (expired()) return undefined;
          throw error;
        },
      );
    };
  });
}
