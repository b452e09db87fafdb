import type { FastifyInstance } from 'fastify';
import { type Database, isDatabaseReachable } from '../db/database.js';
import type { DurationMs } from '../shared/time.js';
import { databaseUnavailable } from './error-handler.js';

/** Whether the server has its schema (migrations applied and the default community made): until then the database is unavailable to requests. */
export interface Startup {
  ready: boolean;
}

export interface HealthOptions {
  startup: Startup;
  /** A pooled connection in use longer than this is stuck past every deadline (liveness fails when all are). */
  stuckAfterMs: DurationMs;
}

/** /readyz answers within this, whatever the database does (a probe's timeout is commonly 1 s). */
const readinessWithinMs = 800;
/** The event loop counts as blocked when a tick comes this late; liveness fails for a while after. */
const blockedLagMs = 5000;
const blockedRecentlyMs = 30_000;
const tickMs = 500;

const isHealthPath = (url: string): boolean => url === '/healthz' || url === '/readyz';

/** Paths that bound their own time and must answer during an outage or before start-up ends. */
export const healthPaths = isHealthPath;

const failure = (code: string, message: string, hint: string) => ({ success: false, error: { code, message, hint } });

/**
 * Liveness (/healthz: the process can still serve) and readiness (/readyz: the database answers),
 * without a key. A database outage fails readiness only: restarting instances cures none. Liveness
 * fails when the event loop was blocked for seconds recently, or when every pooled connection has
 * been in use past any deadline (nothing could be served, and only a restart frees them).
 */
export function registerHealthRoutes(app: FastifyInstance, database: Database, options: HealthOptions): void {
  let lastTick = Date.now();
  let blockedAt = Number.NEGATIVE_INFINITY;
  const ticker = setInterval(() => {
    const now = Date.now();
    if (now - lastTick - tickMs >= blockedLagMs) blockedAt = now;
    lastTick = now;
  }, tickMs);
  ticker.unref();
  app.addHook('onClose', (_instance, done) => {
    clearInterval(ticker);
    done();
  });
  // Until start-up has finished (PostgreSQL down when the process started), requests cannot be served.
  app.addHook('onRequest', (request, _reply, done) => {
    if (options.startup.ready || isHealthPath(request.url)) done();
    else done(databaseUnavailable());
  });

  app.get('/healthz', { schema: { hide: true }, config: { public: true } }, async (_request, reply) => {
    const now = Date.now();
    if (now - blockedAt < blockedRecentlyMs)
      return reply.code(503).send(failure('service_unavailable', 'The event loop was blocked for seconds.', 'Restart this instance.'));
    const use = database.poolUse();
    if (use && use.checkedOutSince.length >= use.size && use.checkedOutSince.every((since) => now - since > options.stuckAfterMs))
      return reply.code(503).send(failure('service_unavailable', 'Every database connection is stuck.', 'Restart this instance.'));
    return { success: true, data: { status: 'ok' } };
  });
  app.get('/readyz', { schema: { hide: true }, config: { public: true } }, async (_request, reply) => {
    const ready = options.startup.ready && (await isDatabaseReachable(database, readinessWithinMs));
    if (!ready) {
      return reply
        .code(503)
        .header('retry-after', '2')
        .send(failure('service_unavailable', 'The database is not reachable.', 'Check DATABASE_URL and the database server.'));
    }
    return { success: true, data: { status: 'ready' } };
  });
}
