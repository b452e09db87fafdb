import type { CountCache } from '../caching/count-cache.js';
import type { ResponseCache } from '../caching/response-cache.js';
import type { Database } from '../db/database.js';
import { backfillGauge } from '../modules/chat-sync/queries/checkpoints.js';
import { chatEventQueueGauge } from '../modules/chat-sync/queries/event-queue.js';
import { pendingDeliveriesGauge } from '../modules/webhooks/queries/deliveries.js';
import { disabledEndpointsGauge } from '../modules/webhooks/queries/endpoints.js';
import { outboxGauge } from '../modules/webhooks/queries/outbox.js';
import type { Clock } from '../shared/clock.js';
import { type DurationMs, durationMs, type EpochMillis, epochMillis } from '../shared/time.js';
import type { PrometheusMetrics } from './metrics.js';

/** What the scrape reads: the database, the clock, and the two caches' sizes. */
interface ScrapedServices {
  database: Database;
  clock: Clock;
  counts: CountCache;
  responses: ResponseCache;
}

/** A scrape's database reads give up after this: a slow database must not hold the scrape (Prometheus times out at 10 s). */
const queryTimeoutMs = durationMs(2000);

/** What the workers' tables hold when Prometheus scrapes: backlogs are rows, not counters in memory. */
interface Backlog {
  deliveriesPending: number;
  oldestDeliveryAt: EpochMillis | null;
  outboxRows: number;
  oldestOutboxAt: EpochMillis | null;
  disabledEndpoints: number;
  eventsPending: number;
  oldestEventAt: EpochMillis | null;
  backfillScopes: number;
  backfillScopesDone: number;
  backfillItems: number;
}

const num = (value: unknown): number => Number(value ?? 0);
const instant = (value: unknown): EpochMillis | null => (value === null || value === undefined ? null : epochMillis(Number(value)));

/** One aggregate query per table, each an index range or a small table's scan (each in its table's home). */
async function readBacklog(database: Database): Promise<Backlog> {
  const { db } = database;
  // One after the other: a scrape holds at most one pooled connection, never the pool's requests' share.
  const deliveries = await pendingDeliveriesGauge(db);
  const outbox = await outboxGauge(db);
  const endpoints = await disabledEndpointsGauge(db);
  const events = await chatEventQueueGauge(db);
  const backfill = await backfillGauge(db);
  return {
    deliveriesPending: num(deliveries.n),
    oldestDeliveryAt: instant(deliveries.oldest),
    outboxRows: num(outbox.n),
    oldestOutboxAt: instant(outbox.oldest),
    disabledEndpoints: num(endpoints.n),
    eventsPending: num(events.n),
    oldestEventAt: instant(events.oldest),
    backfillScopes: num(backfill.n),
    backfillScopesDone: num(backfill.done),
    backfillItems: num(backfill.items),
  };
}

function withTimeout<T>(work: Promise<T>, ms: DurationMs): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

const ageSeconds = (since: EpochMillis | null, now: EpochMillis): number => (since === null ? 0 : Math.max(0, (now - since) / 1000));
const oldest = (a: EpochMillis | null, b: EpochMillis | null): EpochMillis | null =>
  a === null ? b : b === null ? a : epochMillis(Math.min(a, b));

/**
 * The gauges read when Prometheus scrapes: the workers' backlogs from the database (one query per
 * table, run together, under a timeout: a gauge without a fresh value is left out of that scrape
 * rather than shown stale), the caches' counters, and the database's saturation.
 */
export function registerScrapeGauges(metrics: PrometheusMetrics, services: ScrapedServices, onError: (error: unknown) => void): void {
  const { database, clock, counts, responses } = services;
  // One scrape reads each figure once, though several gauges show parts of it: prom-client starts
  // every collect of a scrape in the same tick, so they share the read in flight.
  let inFlight: Promise<Backlog | null> | null = null;
  const backlog = (): Promise<Backlog | null> => {
    inFlight ??= withTimeout(readBacklog(database), queryTimeoutMs)
      .catch((error: unknown) => {
        onError(error);
        return null;
      })
      .finally(() => {
        inFlight = null;
      });
    return inFlight;
  };
  // First: the pool is read before this scrape's own queries take a connection.
  const stats = database.stats();
  if (stats.engine === 'postgres') {
    metrics.gauge(
      'db_pool_connections',
      'PostgreSQL pool connections by state: in_use, idle, and max (the pool size).',
      ['state'],
      (gauge) => {
        const now = database.stats();
        if (now.engine !== 'postgres') return;
        gauge.set({ state: 'in_use' }, now.connections - now.idle);
        gauge.set({ state: 'idle' }, now.idle);
        gauge.set({ state: 'max' }, now.max);
      },
    );
    metrics.gauge(
      'db_pool_waiting',
      'Queries waiting for a PostgreSQL pool connection (the pool is saturated when this stays above 0).',
      [],
      (gauge) => {
        const now = database.stats();
        if (now.engine === 'postgres') gauge.set(now.waiting);
      },
    );
  } else {
    metrics.mirroredCounter(
      'sqlite_write_lock_waits_total',
      'SQLite transactions that waited for the write lock held by another connection (the CLI, a second server process).',
      [],
      () => {
        const now = database.stats();
        return now.engine === 'sqlite' ? [[{}, now.writeLockWaits]] : [];
      },
    );
    metrics.mirroredCounter(
      'sqlite_write_lock_wait_seconds_total',
      'Time SQLite transactions spent waiting for the write lock.',
      [],
      () => {
        const now = database.stats();
        return now.engine === 'sqlite' ? [[{}, now.writeLockWaitSeconds]] : [];
      },
    );
  }

  const fromBacklog = (name: string, help: string, value: (b: Backlog, now: EpochMillis) => number) =>
    metrics.gauge(name, help, [], async (gauge) => {
      const read = await backlog();
      gauge.reset();
      if (read) gauge.set(value(read, clock.now()));
    });

  fromBacklog(
    'webhook_backlog',
    'Webhook deliveries not yet sent: pending deliveries plus outbox rows not yet fanned out to endpoints.',
    (b) => b.deliveriesPending + b.outboxRows,
  );
  fromBacklog(
    'webhook_oldest_pending_age_seconds',
    'Age of the oldest webhook event not yet delivered (0 when nothing is pending).',
    (b, now) => ageSeconds(oldest(b.oldestDeliveryAt, b.oldestOutboxAt), now),
  );
  fromBacklog(
    'webhook_endpoints_disabled',
    'Webhook endpoints disabled (410 Gone, or failing longer than the retry schedule).',
    (b) => b.disabledEndpoints,
  );
  fromBacklog('chat_event_queue_depth', 'Slack events received and not yet applied.', (b) => b.eventsPending);
  fromBacklog(
    'chat_event_queue_oldest_age_seconds',
    'Age of the oldest Slack event not yet applied (0 when the queue is empty).',
    (b, now) => ageSeconds(b.oldestEventAt, now),
  );
  metrics.gauge(
    'chat_backfill_scopes',
    'Listings (users, each channel history) of unfinished Slack backfills, by state; a finished backfill clears its own.',
    ['state'],
    async (gauge) => {
      const read = await backlog();
      gauge.reset();
      if (!read) return;
      gauge.set({ state: 'done' }, read.backfillScopesDone);
      gauge.set({ state: 'in_progress' }, read.backfillScopes - read.backfillScopesDone);
    },
  );
  fromBacklog('chat_backfill_items', 'Items (users, messages) read so far by unfinished Slack backfills.', (b) => b.backfillItems);

  metrics.mirroredCounter(
    'cache_requests_total',
    'Lookups of the in-memory caches by cache (response, count) and result (hit, miss).',
    ['cache', 'result'],
    () => [
      [{ cache: 'response', result: 'hit' }, responses.hits],
      [{ cache: 'response', result: 'miss' }, responses.misses],
      [{ cache: 'count', result: 'hit' }, counts.hits],
      [{ cache: 'count', result: 'miss' }, counts.misses],
    ],
  );
}
