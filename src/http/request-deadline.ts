import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import { type RequestDeadline, setRequestDeadline } from '../shared/request-deadline.js';
import type { DurationMs } from '../shared/time.js';
import { deadlinePassed } from './error-handler.js';

interface Pending {
  deadline: RequestDeadline;
  timer: NodeJS.Timeout;
  /** When the timer fires (ms since the epoch). */
  at: number;
  expire: () => void;
}

/** The requests in flight of each app, so that a stop can bring their deadlines forward. */
const inFlight = new WeakMap<FastifyInstance, Set<Pending>>();

/** How many requests of the app are still waiting for their answer. */
export function inFlightRequests(app: FastifyInstance): number {
  return inFlight.get(app)?.size ?? 0;
}

/**
 * Brings every in-flight request's deadline to at most `withinMs` from now: a graceful stop during
 * an outage answers what it can (503 request_timeout) within its grace instead of waiting out each
 * request's full deadline.
 */
export function hurryRequests(app: FastifyInstance, withinMs: DurationMs): void {
  const at = Date.now() + withinMs;
  for (const pending of inFlight.get(app) ?? []) {
    if (pending.at <= at) continue;
    clearTimeout(pending.timer);
    pending.at = at;
    pending.timer = setTimeout(pending.expire, withinMs);
    pending.timer.unref();
  }
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
  const live = new Set<Pending>();
  inFlight.set(app, live);
  const expire = (request: FastifyRequest, reply: FastifyReply, deadline: RequestDeadline) => {
    // A streamed answer whose headers are out (an activity export) can no longer become a 503.
    if (reply.sent || reply.raw.headersSent || deadline.committing || request.raw.destroyed) return;
    deadline.expired = true;
    request.log.warn({ deadline_ms: deadlineMs }, 'request ran past its deadline: answering 503');
    reply.send(deadlinePassed());
  };
  const clear = (request: FastifyRequest) => {
    const state = pendingOf(request);
    if (!state) return;
    clearTimeout(state.timer);
    live.delete(state);
  };

  app.addHook('onRequest', (request, reply, done) => {
    if (exempt(request.url)) return done();
    const deadline: RequestDeadline = { expired: false, committing: false };
    const fire = () => expire(request, reply, deadline);
    const timer = setTimeout(fire, deadlineMs);
    timer.unref();
    const state: Pending = { deadline, timer, at: Date.now() + deadlineMs, expire: fire };
    (request as Carrying)[stateOf] = state;
    setRequestDeadline(request, deadline);
    live.add(state);
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
