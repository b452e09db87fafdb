import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';

/**
 * While the server stops (SIGTERM), a request arriving on a keep-alive connection is answered 503
 * service_unavailable in the envelope, with Retry-After and Connection: close (Fastify's own
 * return503OnClosing answers outside the envelope). The client retries on another instance.
 */
export function registerClosingAnswer(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', (_request, _reply, done) => {
    if (!closing) return done();
    done(new ApiError('service_unavailable', 'The server is stopping.', { headers: { 'retry-after': '1', connection: 'close' } }));
  });
}
