import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { type Database, migrateToLatest, openDatabase } from './db/database.js';
import { isDatabaseUnavailable } from './db/unavailable.js';
import { hurryRequests, inFlightRequests } from './http/request-deadline.js';
import { ActivityRetentionWorker } from './modules/activities/activities.worker.js';
import { bootstrapDefaultCommunity } from './modules/communities/communities.commands.js';
import { createConsoleLink } from './modules/console-sessions/console-sessions.commands.js';
import { consoleBaseUrl, consoleLinkUrl } from './modules/console-sessions/console-sessions.rules.js';
import { selectUnpairedCommunities } from './modules/search/queries/entries.js';
import { DeliveryWorker } from './modules/webhooks/worker/deliveries.js';
import { systemClock } from './shared/clock.js';
import { nodeEndOfLifeWarning } from './shared/node-support.js';
import { durationMs, type EpochMillis, epochMillis } from './shared/time.js';

/** How long a graceful stop may take before the process gives up on in-flight work. */
const stopDeadlineMs = 9000;
/** What a stop keeps of its grace after the in-flight requests' hurried deadline (answers sent, database closed). */
const stopReserveMs = 4500;
/** How often a stopping server closes the keep-alive connections that have become idle. */
const idleCloseEveryMs = 50;

/** What the first start made: the default community, its key's secret, and a console link's token (null when CONSOLE=false). */
type FirstStart = NonNullable<Awaited<ReturnType<typeof bootstrapDefaultCommunity>>> & { consoleToken: string | null };

/** How long the first start's console link works (the default of `console link`). */
const firstStartLinkMs = durationMs(15 * 60_000);

/** The console link of the banner, with how to get another, or nothing when the console is off. */
function consoleLines(token: string | null, communityId: string, consoleBase: string): string[] {
  if (token === null) return [];
  return [
    'The console, in a browser: this link signs you in (it works once, within 15 minutes):',
    '',
    `  ${consoleLinkUrl(consoleBase, token)}`,
    '',
    `A new link at any time: npx community-admin console link --community ${communityId}`,
    '',
  ];
}

/** The banner of the first start: the only time a default key is ever shown. */
function firstStartBanner(created: FirstStart, config: Config, consoleBase: string): string {
  const { key, community } = created;
  const communityId = community.id;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const base = `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
  return [
    '',
    'First start: created the community "Default community" (enterprise plan) and its API key.',
    'This key is shown once and never again; store it now:',
    '',
    `  ${key}`,
    '',
    ...consoleLines(created.consoleToken, communityId, consoleBase),
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

const delay = <T>(ms: number, value: T): Promise<T> =>
  new Promise((resolve) => {
    setTimeout(() => resolve(value), ms).unref();
  });

/**
 * Resolves (false) once every request has its answer and the hurried deadline has passed, or when
 * only the time to close the database is left of the grace.
 */
async function answeredOrLate(app: FastifyInstance, stopAt: EpochMillis): Promise<false> {
  const hurriedBy = stopAt + stopDeadlineMs - stopReserveMs + 500;
  const lastAt = stopAt + stopDeadlineMs - 1500;
  while (Date.now() < lastAt && (Date.now() < hurriedBy || inFlightRequests(app) > 0)) await delay(100, null);
  return false;
}

/** How long start-up waits between attempts while PostgreSQL cannot be reached. */
const startRetryMs = 1000;

/**
 * Migrations, on a handle of their own without statement_timeout (a migration may rightly run long),
 * then the default community: what the server needs before it can serve a request.
 */
async function prepareDatabase(config: Config, database: Database): Promise<FirstStart | null> {
  if (database.engine === 'postgres') {
    const migrations = openDatabase(config.database, {
      poolSize: 2,
      timeouts: { statementMs: durationMs(0), connectMs: config.databaseTimeouts.connectMs },
    });
    try {
      await migrateToLatest(migrations);
    } finally {
      await migrations.close();
    }
  } else await migrateToLatest(database);
  const created = await bootstrapDefaultCommunity({ database, clock: systemClock });
  if (!created) return null;
  const consoleToken = config.console
    ? (await createConsoleLink({ database, clock: systemClock, communityId: created.community.id }, firstStartLinkMs)).token
    : null;
  return { ...created, consoleToken };
}

/** Names the communities whose search index predates word pairs (docs/search.md): one reindex each makes their phrases fast. */
async function warnOfUnpairedIndexes(database: Database, app: FastifyInstance): Promise<void> {
  try {
    const communities = await selectUnpairedCommunities(database.db, 20);
    if (communities.length === 0) return;
    app.log.warn(
      { communities },
      'search: these communities were indexed before word pairs; phrases with common words are slower there until `community-admin search reindex --community ID` (docs/search.md)',
    );
  } catch (error) {
    app.log.warn({ err: error }, 'search: could not list the communities indexed before word pairs');
  }
}

/** Runs the server until SIGTERM/SIGINT: migrate, bootstrap, listen, then stop gracefully. */
export async function runServer(config: Config): Promise<void> {
  const database: Database = openDatabase(config.database, {
    timeouts: config.databaseTimeouts,
    idleInTransactionMs: config.requestDeadlineMs,
    checkpointsOffLoop: true,
  });
  const startup = { ready: false };
  let bootstrap: Awaited<ReturnType<typeof prepareDatabase>> = null;
  try {
    bootstrap = await prepareDatabase(config, database);
    startup.ready = true;
  } catch (error) {
    // PostgreSQL down at start: listen anyway (503 and /readyz 503), and keep trying in the background.
    if (config.database.engine !== 'postgres' || !isDatabaseUnavailable(error)) throw error;
  }
  const app: FastifyInstance = await buildApp({ config, database, startup });
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
  // Activity records past ACTIVITY_RETENTION_DAYS: a pass at start, then hourly, in small batches.
  const activityRetention = new ActivityRetentionWorker({
    database,
    clock: systemClock,
    retentionDays: config.activityRetentionDays,
    log: app.log,
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
    // In an outage a request may wait out its whole deadline: answer it (503) well within the grace,
    // leaving time for its answer's hooks and for closing the database.
    hurryRequests(app, durationMs(stopDeadlineMs - stopReserveMs));
    try {
      // The background workers (webhooks, chat events) may be waiting on a database that does not
      // answer: their work is leased and resumed by any instance, so once every request has its
      // answer they are not waited for past the point that leaves time to close the database.
      const closed = Promise.all([webhooks.stop(), activityRetention.stop(), app.close()]).then(() => true);
      const waited = await Promise.race([closed, answeredOrLate(app, epochMillis(Date.now()))]);
      clearInterval(closeIdle);
      // Bounded: a database that does not answer (an outage) is given up after half a second.
      await database.close();
      const unanswered = inFlightRequests(app);
      if (!waited) app.log.warn({ unanswered }, 'stopped without waiting for the background workers');
      process.exit(unanswered === 0 ? 0 : 1);
    } catch (error) {
      app.log.error({ err: error }, 'error while stopping');
      process.exit(1);
    }
  };
  const started = (created: typeof bootstrap) => {
    webhooks.start();
    activityRetention.start();
    if (created) {
      const consoleBase = consoleBaseUrl(config.files.publicBaseUrl, config, app.server.address());
      process.stdout.write(firstStartBanner(created, config, consoleBase));
    }
    void warnOfUnpairedIndexes(database, app);
  };
  // Installed before listening, so a signal that arrives as soon as the port opens still stops gracefully.
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
  await app.listen({ port: config.port, host: config.host });
  if (startup.ready) return started(bootstrap);
  app.log.warn('the database is unreachable: serving 503 until it answers');
  for (;;) {
    await delay(startRetryMs, null);
    if (stopping) return;
    try {
      const created = await prepareDatabase(config, database);
      if (stopping) return;
      startup.ready = true;
      app.log.info('the database answers: serving');
      return started(created);
    } catch (error) {
      if (!isDatabaseUnavailable(error)) {
        app.log.fatal({ err: error }, 'start-up failed');
        process.exit(1);
      }
    }
  }
}
