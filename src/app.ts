import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyServerOptions, LogController } from 'fastify';
import { CountCache } from './caching/count-cache.js';
import { RankedListCache } from './caching/ranked-lists.js';
import { ResponseCache } from './caching/response-cache.js';
import { createSlackWorkspaceFactory } from './chat/index.js';
import type { Config } from './config.js';
import { type Database, queryTimeoutMarginMs } from './db/database.js';
import type { AppServices } from './dependencies.js';
import { authenticationStep } from './http/auth.js';
import { registerBodyParsers } from './http/body-parsers.js';
import { registerClosingAnswer } from './http/closing.js';
import { registerConsole } from './http/console.routes.js';
import { corsSteps } from './http/cors.js';
import { registerErrorHandler } from './http/error-handler.js';
import { healthPaths, registerHealthRoutes, type Startup } from './http/health.routes.js';
import { registerIdempotency } from './http/idempotency.js';
import { loggerOptions } from './http/log-redaction.js';
import { registerNotFound } from './http/not-found.js';
import { registerNulGuard } from './http/nul-guard.js';
import { registerOpenApi } from './http/openapi.js';
import { permissionSteps, planSteps, routeRuleOf } from './http/plans.js';
import { createRateLimiter, keyBudgetStep } from './http/rate-limit.js';
import { AddressBudget, calendarBudgetStep, downloadBudgetStep, signInBudgetStep } from './http/rate-limit-address.js';
import { CostBudget, costMeterStep } from './http/rate-limit-cost.js';
import { registerRequestDeadline } from './http/request-deadline.js';
import {
  guardCalendarRoutes,
  guardDownloadRoutes,
  guardProtectedRoutes,
  guardSignInRoutes,
  registerRequestGuard,
} from './http/request-guard.js';
import { requestIdFrom, responseHeadersStep } from './http/response-headers.js';
import { registerSerialization } from './http/serialization.js';
import { registerBodyErrorDocs, transportOptions } from './http/transport-errors.js';
import { registerValidation } from './http/validation.js';
import { createMetrics, registerMetrics } from './metrics/metrics.routes.js';
import { Authenticator } from './modules/api-keys/api-keys.reads.js';
import { chatEventsRoutes } from './modules/chat-sync/routes/events.js';
import { IdempotencyService } from './modules/idempotency/idempotency.commands.js';
import { routeRules } from './modules/plan-requirements.js';
import { moduleRoutes } from './modules/routes.js';
import { type Clock, systemClock } from './shared/clock.js';
import { publicBaseUrl } from './shared/public-base-url.js';
import { SecretBox } from './shared/secret-box.js';
import { durationMs } from './shared/time.js';
import { errorProse, openApiDocumentTransform, registerWireNames } from './wire-names/wire-names.plugin.js';

export interface BuildAppOptions {
  config: Config;
  database: Database;
  clock?: Clock;
  /** Pino options, or false for silence (tests). */
  logger?: FastifyServerOptions['logger'];
  /** Overrides of the default services (tests inject fakes of the outside world here). */
  services?: Partial<AppServices>;
  /** Whether start-up has finished (main.ts sets it once PostgreSQL let it); ready by default. */
  startup?: Startup;
  /** Where the built console is (default: console/dist of the project); tests point it elsewhere. */
  consoleDir?: string;
}

/** Builds the whole HTTP application without listening, so tests can inject requests. */
export async function buildApp(options: BuildAppOptions): Promise<FastifyInstance> {
  const { config, database } = options;
  const clock = options.clock ?? systemClock;
  const services: AppServices = {
    config,
    database,
    clock,
    authenticator: new Authenticator(database, clock),
    counts: new CountCache(),
    responses: new ResponseCache(config.responseCacheMb * 1024 * 1024),
    rankings: new RankedListCache(config.searchRankingsMb * 1024 * 1024),
    chat: createSlackWorkspaceFactory({ apiUrl: config.chatApiUrl, timeoutMs: config.chatTimeoutMs }),
    secrets: new SecretBox(config.secrets),
    // Asked at request time: the listening port is known only then (PORT=0).
    publicBaseUrl: () => publicBaseUrl(config.files.publicBaseUrl, config, app.server.address()),
    metrics: createMetrics(config),
    ...options.services,
  };

  const app = Fastify({
    logger: loggerOptions(config, options.logger),
    logController: new LogController({ requestIdLogLabel: 'request_id' }),
    genReqId: (request) => requestIdFrom(request.headers['x-request-id'], randomUUID),
    bodyLimit: 1024 * 1024,
    routerOptions: { maxParamLength: 512 },
    trustProxy: config.trustProxy,
    requestTimeout: config.requestTimeoutMs,
    // Answered in the envelope instead (closing.ts).
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    ...transportOptions(config),
  });
  app.decorate('services', services);

  registerValidation(app);
  registerSerialization(app);
  registerErrorHandler(app, { codeErrorProse: errorProse(config.wireNames) });
  // Before the routes: it wraps each route's handler as it is added.
  registerRequestDeadline(app, config.requestDeadlineMs, healthPaths);
  registerNotFound(app);
  registerClosingAnswer(app);
  registerBodyErrorDocs(app);
  registerBodyParsers(app);
  registerNulGuard(app);
  // What decides whether a request reaches its route, in this order: the standard headers (so even
  // refusals carry them), CORS (a preflight is answered before auth), then on protected routes
  // the per-address budget and the key (requests without a valid key are counted per address
  // before the lookup, so keys cannot be guessed at speed), the key's own budget, the plan, then the key's permission.
  registerRequestGuard(app, [responseHeadersStep, ...corsSteps(config.corsOrigins)]);
  // Before the routes: the hosted product's spelling renames their request schemas as they are added.
  registerWireNames(app, config.wireNames);
  await registerOpenApi(app, routeRules, { transformDocument: openApiDocumentTransform(config.wireNames) });
  const rateLimiter = createRateLimiter(app, config, clock);
  const identify = authenticationStep(services.authenticator, new AddressBudget(rateLimiter, services.authenticator, clock));
  const keyBudget = keyBudgetStep(rateLimiter);
  const costMeter = costMeterStep(new CostBudget(rateLimiter, clock, config.rateLimit));
  app.decorateRequest('principal', null);
  app.decorateRequest('costMeter', null);
  const routeRule = routeRuleOf(routeRules);
  guardProtectedRoutes(app, (route) => {
    const rule = routeRule(route);
    const cost = route.config?.costBudget ? [costMeter] : [];
    return [identify, keyBudget, ...cost, ...planSteps(rule?.plan), ...permissionSteps(rule?.permission)];
  });
  guardDownloadRoutes(app, [downloadBudgetStep(rateLimiter)]);
  guardSignInRoutes(app, [signInBudgetStep(rateLimiter)]);
  guardCalendarRoutes(app, [calendarBudgetStep(rateLimiter)]);
  // Idempotency: route hooks of the mutating routes, after the guard's, so refused requests store nothing.
  // A claim's lease follows from the request's deadline: a key whose request died is free again
  // after it, plus the longest a commit begun before the deadline may still take.
  const leaseMs = durationMs(config.requestDeadlineMs + config.databaseTimeouts.statementMs + queryTimeoutMarginMs);
  registerIdempotency(app, new IdempotencyService(database, clock, { leaseMs }), services.metrics);
  registerHealthRoutes(app, database, {
    startup: options.startup ?? { ready: true },
    // Past its deadline a request has answered, and its statements have timed out: a connection
    // still in use after both is stuck.
    stuckAfterMs: durationMs(config.requestDeadlineMs + 2 * (config.databaseTimeouts.statementMs + config.databaseTimeouts.connectMs)),
  });
  registerMetrics(app, services);
  if (config.console) registerConsole(app, options.consoleDir);
  for (const routes of moduleRoutes) await app.register(routes, { services });
  // Slack's Events API request URL: public, signed by Slack, outside /admin/v0.
  await app.register(chatEventsRoutes, { services });
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    services: AppServices;
  }
}
