import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { type Database, migrateToLatest, openDatabase } from './db/database.js';
import { bootstrapDefaultCommunity } from './modules/communities/communities.service.js';
import { systemClock } from './shared/clock.js';
import { nodeEndOfLifeWarning } from './shared/node-support.js';
import { DeliveryWorker } from './webhooks/delivery-worker.js';

/** How long a graceful stop may take before the process gives up on in-flight work. */
const stopDeadlineMs = 9000;
/** How often a stopping server closes the keep-alive connections that have become idle. */
const idleCloseEveryMs = 50;

/** The banner of the first start: the only time a default key is ever shown. */
function firstStartBanner(key: string, communityId: string, config: Config): string {
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const base = `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
  return [
    '',
    'First start: created the community "Default community" (enterprise plan) and its API key.',
    'This key is shown once and never again; store it now:',
    '',
    `  ${key}`,
    '',
    'Try it:',
    `  curl -H "Authorization: Bearer ${key}" ${base}/admin/v0/calendar_events`,
    '',
    `API reference: ${base}/docs   OpenAPI: ${base}/admin/v0/openapi.json`,
    '',
    'Next, give the community its data, either:',
    `  - demo data:  npx community-admin seed --community ${communityId}`,
    '  - your Slack workspace: create the app from slack-app-manifest.yml (in the project root; README,',
    '    "Connecting a Slack workspace"), then',
    `    npx community-admin chat connect --community ${communityId} --bot-token xoxb-... --signing-secret ...`,
    `    npx community-admin feed add --community ${communityId} --channel C... --sync-all`,
    `    npx community-admin chat sync --community ${communityId}`,
    `    and point the app's Event Subscriptions at ${base}/chat/events (reachable by Slack over HTTPS).`,
    '',
  ].join('\n');
}

/** Runs the server until SIGTERM/SIGINT: migrate, bootstrap, listen, then stop gracefully. */
export async function runServer(config: Config): Promise<void> {
  const database: Database = openDatabase(config.database);
  await migrateToLatest(database);
  const bootstrap = await bootstrapDefaultCommunity({ database, clock: systemClock });
  const app: FastifyInstance = await buildApp({ config, database });
  const endOfLife = nodeEndOfLifeWarning(process.version, systemClock.now());
  if (endOfLife) app.log.warn({ node: process.version }, endOfLife);
  // Webhook deliveries are sent from every instance; leases keep each one with one sender at a time.
  const webhooks = new DeliveryWorker({
    database,
    clock: systemClock,
    log: app.log,
    wireNames: config.wireNames,
    metrics: app.services.metrics,
    ...config.webhooks,
  });
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'stopping: finishing in-flight requests');
    const deadline = setTimeout(() => {
      app.log.error('graceful stop took too long; exiting');
      process.exit(1);
    }, stopDeadlineMs);
    deadline.unref();
    // A keep-alive connection whose request finishes after the stop began would stay open, idle,
    // for as long as its client (a load balancer's pool) keeps it, and hold the stop until the
    // deadline: close each one as soon as it is idle. New requests meanwhile get a 503.
    const closeIdle = setInterval(() => app.server.closeIdleConnections(), idleCloseEveryMs);
    closeIdle.unref();
    try {
      await Promise.all([webhooks.stop(), app.close()]);
      clearInterval(closeIdle);
      await database.close();
      process.exit(0);
    } catch (error) {
      app.log.error({ err: error }, 'error while stopping');
      process.exit(1);
    }
  };
  // Installed before listening, so a signal that arrives as soon as the port opens still stops gracefully.
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
  await app.listen({ port: config.port, host: config.host });
  webhooks.start();
  if (bootstrap) process.stdout.write(firstStartBanner(bootstrap.key, bootstrap.community.id, config));
}
