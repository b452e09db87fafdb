import { timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { AppServices } from '../dependencies.js';
import { ApiError } from '../errors.js';
import { type Metrics, noMetrics, PrometheusMetrics } from './metrics.js';
import { registerScrapeGauges } from './scrape-gauges.js';

/** The metrics of a configuration: Prometheus ones when METRICS_TOKEN or METRICS_PORT is set, else ones that cost nothing. */
export function createMetrics(config: Config): Metrics {
  return config.metrics.token === null && config.metrics.port === null ? noMetrics : new PrometheusMetrics();
}

function sameToken(presented: string | undefined, expected: string): boolean {
  const match = presented === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(presented);
  if (!match?.[1]) return false;
  const a = Buffer.from(match[1]);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The metrics server of METRICS_PORT: GET /metrics only, nothing of the API. */
function metricsServer(metrics: PrometheusMetrics, token: string | null): Server {
  return createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: this port serves GET /metrics only.\n');
      return;
    }
    if (token !== null && !sameToken(request.headers.authorization, token)) {
      response.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' }).end('METRICS_TOKEN required.\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(request.method === 'HEAD' ? undefined : text),
      () => response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics could not be collected\n'),
    );
  });
}

/**
 * Request metrics (one onResponse hook, only when metrics are on) and GET /metrics: beside the API
 * behind METRICS_TOKEN, or alone on METRICS_PORT (started when the app listens, bound like HOST).
 */
export function registerMetrics(app: FastifyInstance, services: AppServices): void {
  const { metrics, config } = services;
  if (!(metrics instanceof PrometheusMetrics)) return;
  registerScrapeGauges(metrics, services, (error) => app.log.warn({ err: error }, 'metrics: reading the backlogs failed'));

  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done) => {
    metrics.requestDone(
      request.routeOptions.url ?? 'unmatched',
      request.method,
      reply.statusCode,
      reply.elapsedTime / 1000,
      request.principal !== null,
    );
    done();
  });

  const { token, port } = config.metrics;
  if (port !== null) {
    const server = metricsServer(metrics, token);
    app.addHook('onListen', async () => {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, config.host, () => resolve());
      });
      app.log.info({ port, host: config.host }, 'metrics served on their own port');
    });
    app.addHook('onClose', async () => {
      // Node's close() also closes the idle keep-alive connections Prometheus keeps between scrapes.
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    });
    return;
  }
  if (token === null) return;
  app.get('/metrics', { schema: { hide: true }, config: { public: true } }, async (request, reply) => {
    if (!sameToken(request.headers.authorization, token))
      throw new ApiError('unauthorized', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.', {
        hint: 'Give Prometheus the token as its scrape config credentials (docs/operations.md).',
      });
    const text = await metrics.registry.metrics();
    return reply.header('content-type', metrics.registry.contentType).send(text);
  });
}
