import type { FastifyInstance } from 'fastify';
import { type Database, isDatabaseReachable } from '../db/database.js';

/** Liveness (process up) and readiness (database reachable), without a key. */
export function registerHealthRoutes(app: FastifyInstance, database: Database): void {
  app.get('/healthz', { schema: { hide: true }, config: { public: true } }, async () => ({ success: true, data: { status: 'ok' } }));
  app.get('/readyz', { schema: { hide: true }, config: { public: true } }, async (_request, reply) => {
    const ready = await isDatabaseReachable(database);
    if (!ready) {
      return reply.code(503).send({
        success: false,
        error: {
          code: 'service_unavailable',
          message: 'The database is not reachable.',
          hint: 'Check DATABASE_URL and the database server.',
        },
      });
    }
    return { success: true, data: { status: 'ready' } };
  });
}
