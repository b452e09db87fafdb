import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler, RouteOptions } from 'fastify';

/**
 * One check that runs before a route's own work. It refuses by throwing (an ApiError), answers by
 * sending the reply (a CORS preflight), and returns a promise only when it has to wait for
 * something outside the process (a key not yet in the authenticator's cache, Redis).
 */
export type GuardStep = (request: FastifyRequest, reply: FastifyReply) => void | Promise<void>;

/**
 * Runs the steps in order from `from`, synchronously while they are synchronous. Fastify's
 * callback form is used on purpose: an async hook costs a promise and a microtask per hook per
 * request, and with six of them that was most of the CPU of a cached read (docs/performance.md).
 */
function runSteps(
  steps: readonly GuardStep[],
  from: number,
  request: FastifyRequest,
  reply: FastifyReply,
  done: (error?: Error) => void,
): void {
  for (let i = from; i < steps.length; i++) {
    let pending: void | Promise<void>;
    try {
      pending = (steps[i] as GuardStep)(request, reply);
    } catch (error) {
      done(error as Error);
      return;
    }
    if (pending) {
      pending.then(() => runSteps(steps, i + 1, request, reply, done), done);
      return;
    }
    // A step that answered (a preflight) ends the request here; Fastify must not go on.
    if (reply.sent) return;
  }
  done();
}

const asHook =
  (steps: readonly GuardStep[]): onRequestHookHandler =>
  (request, reply, done) =>
    runSteps(steps, 0, request, reply, done);

/** The steps every request goes through, known routes or not: the standard headers and CORS. */
export function registerRequestGuard(app: FastifyInstance, always: readonly GuardStep[]): void {
  app.addHook('onRequest', asHook(always));
}

/**
 * The steps of every protected route (not marked `config.public`): the per-address budget,
 * authentication, the per-key budget and the plan guard, in that order, so that each refusal is
 * the first that applies (a flood without keys gets 429 before 401). They are built once per route
 * when it is registered, so what a route needs (its minimum plan) is settled then, and they run as
 * the route's first onRequest hook, after the app-wide steps. Register this after anything that
 * marks routes public (the documentation pages) and before the routes it guards.
 */
export function guardProtectedRoutes(app: FastifyInstance, stepsOf: (route: RouteOptions) => GuardStep[]): void {
  app.addHook('onRoute', (route) => {
    if (route.config?.public) return;
    const existing = route.onRequest === undefined ? [] : [route.onRequest].flat();
    route.onRequest = [asHook(stepsOf(route)), ...existing];
  });
}

/** The steps of public routes that ask for a budget of their own (`config.downloadBudget`: file downloads). */
export function guardDownloadRoutes(app: FastifyInstance, steps: readonly GuardStep[]): void {
  guardPublicRoutes(app, (route) => Boolean(route.config?.downloadBudget), steps);
}

/** The steps of public routes that take guesses (`config.signInBudget`: the console's sign-in). */
export function guardSignInRoutes(app: FastifyInstance, steps: readonly GuardStep[]): void {
  guardPublicRoutes(app, (route) => Boolean(route.config?.signInBudget), steps);
}

/** The steps of calendar feeds (`config.calendarBudget`): per token and per address. */
export function guardCalendarRoutes(app: FastifyInstance, steps: readonly GuardStep[]): void {
  guardPublicRoutes(app, (route) => Boolean(route.config?.calendarBudget), steps);
}

function guardPublicRoutes(app: FastifyInstance, applies: (route: RouteOptions) => boolean, steps: readonly GuardStep[]): void {
  app.addHook('onRoute', (route) => {
    if (!applies(route)) return;
    const existing = route.onRequest === undefined ? [] : [route.onRequest].flat();
    route.onRequest = [asHook(steps), ...existing];
  });
}
