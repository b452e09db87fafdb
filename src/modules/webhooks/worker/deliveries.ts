import { randomUUID } from 'node:crypto';
import { defaultWebhookRetentionDays } from '../../../config.js';
import type { Database } from '../../../db/database.js';
import type { Metrics } from '../../../metrics/metrics.js';
import type { Clock } from '../../../shared/clock.js';
import { daysMs } from '../../../shared/duration.js';
import { addMillis, type DurationMs, durationMs, type EpochMillis, epochMillis, subtractMillis } from '../../../shared/time.js';
import { slackKeysInJson } from '../../../wire-names/json-text-keys.js';
import type { WireNames } from '../../../wire-names/wire-names.js';
import { drainWebhookOutbox } from '../commands/fan-out.js';
import { claimDueDeliveries, type DueDelivery, pruneSettledDeliveries, recordAttempt, settleDisabled } from '../queries/deliveries.js';
import { dayMs, retryDelay, scheduleSpanMs } from '../rules/retry-schedule.js';
import { signingSecrets } from '../rules/signing.js';
import type { Resolver } from '../rules/target-address.js';
import { type AttemptResult, sendSignedWebhook } from './post-webhook.js';

const pruneIntervalMs = durationMs(60 * 60 * 1000);

/** The log lines the worker writes (pino's signature, so the app's logger fits). */
export interface WorkerLog {
  info(object: Record<string, unknown>, message: string): void;
  warn(object: Record<string, unknown>, message: string): void;
  error(object: Record<string, unknown>, message: string): void;
}

export interface DeliveryWorkerOptions {
  database: Database;
  clock: Clock;
  log: WorkerLog;
  allowPrivate: boolean;
  /** One attempt's limit (WEBHOOK_TIMEOUT_MS, 5 s by default). */
  timeoutMs: DurationMs;
  /** How long delivered and failed deliveries are kept (WEBHOOK_RETENTION_DAYS, 30 days by default). */
  retentionMs?: DurationMs;
  /** Identifies this worker in leases; unique per process. */
  owner?: string;
  /** Deliveries claimed per tick, and per endpoint within them. */
  batchSize?: number;
  perEndpoint?: number;
  /** Pause between ticks that found nothing to do (real time; tests call tick() instead). */
  pollIntervalMs?: DurationMs;
  resolver?: Resolver;
  random?: () => number;
  /** Counts each attempt's outcome (Prometheus metrics when they are on). */
  metrics?: Pick<Metrics, 'webhookAttempt'>;
  /** The spelling the API answers in (WIRE_NAMES): payloads are stored in the spec's and sent in this one. */
  wireNames?: WireNames;
}

/**
 * Sends the outbox's deliveries. Each tick leases the due deliveries (on PostgreSQL with
 * `FOR UPDATE SKIP LOCKED`, so instances share the work without sending one delivery twice at a
 * time), sends each endpoint's in order, one after the other, endpoints in parallel, and records
 * the outcome. A lease covers the sends it was taken for; a process killed mid-send leaves its
 * deliveries leased until then, and they are sent again by whichever worker ticks next.
 */
export class DeliveryWorker {
  readonly owner: string;
  private readonly batchSize: number;
  private readonly perEndpoint: number;
  private readonly pollIntervalMs: DurationMs;
  private running: Promise<number> | null = null;
  private loop: Promise<void> | null = null;
  private stopped = true;
  private wake: (() => void) | null = null;
  private nextPruneAt = epochMillis(0);

  constructor(private readonly options: DeliveryWorkerOptions) {
    this.owner = options.owner ?? randomUUID();
    this.batchSize = options.batchSize ?? 200;
    this.perEndpoint = options.perEndpoint ?? 50;
    this.pollIntervalMs = options.pollIntervalMs ?? durationMs(1000);
  }

  /** Claims and sends what is due now; answers how many deliveries it attempted. Never runs twice at once. */
  tick(): Promise<number> {
    if (!this.running)
      this.running = this.runTick().finally(() => {
        this.running = null;
      });
    return this.running;
  }

  /** Ticks until stop(): at once while there is work, else every pollIntervalMs. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.loop = (async () => {
      while (!this.stopped) {
        let attempted = 0;
        try {
          attempted = await this.tick();
        } catch (error) {
          this.options.log.error({ err: error }, 'webhook worker: tick failed');
        }
        if (attempted === 0 && !this.stopped) await this.pause();
      }
    })();
  }

  /** Stops ticking; sends in flight finish (each within the attempt timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
    await this.running;
  }

  private pause(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, this.pollIntervalMs);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private async runTick(): Promise<number> {
    const { database, clock, timeoutMs } = this.options;
    await drainWebhookOutbox(database);
    await this.pruneNowAndThen();
    // The lease covers every send of the longest per-endpoint queue claimed, plus a margin.
    const claimed = await claimDueDeliveries(database, clock.now(), this.owner, {
      batchSize: this.batchSize,
      perEndpoint: this.perEndpoint,
      leaseMs: (count) => durationMs(count * timeoutMs + Math.max(2000, timeoutMs)),
    });
    if (claimed.length === 0) return 0;
    const byEndpoint = new Map<string, DueDelivery[]>();
    for (const delivery of claimed) {
      const queue = byEndpoint.get(delivery.endpoint_id);
      if (queue) queue.push(delivery);
      else byEndpoint.set(delivery.endpoint_id, [delivery]);
    }
    await Promise.all([...byEndpoint.values()].map((queue) => this.sendQueue(queue)));
    return claimed.length;
  }

  /** Deletes settled deliveries past the retention, at most once an hour per worker. */
  private async pruneNowAndThen(): Promise<void> {
    const now = this.options.clock.now();
    if (now < this.nextPruneAt) return;
    this.nextPruneAt = addMillis(now, pruneIntervalMs);
    const retentionMs = this.options.retentionMs ?? daysMs(defaultWebhookRetentionDays);
    const removed = await pruneSettledDeliveries(this.options.database, subtractMillis(now, retentionMs));
    if (removed > 0) this.options.log.info({ removed, retention_days: retentionMs / dayMs }, 'webhook deliveries pruned');
  }

  private async sendQueue(queue: DueDelivery[]): Promise<void> {
    for (const [index, delivery] of queue.entries()) {
      if (delivery.disabled_at !== null) {
        await settleDisabled(this.options.database, queue.slice(index), this.owner, this.options.clock.now());
        return;
      }
      const disabled = await this.sendOne(delivery);
      if (disabled) {
        await settleDisabled(this.options.database, queue.slice(index + 1), this.owner, this.options.clock.now());
        return;
      }
    }
  }

  /** One attempt and its outcome; answers true when it disabled the endpoint. */
  private async sendOne(delivery: DueDelivery): Promise<boolean> {
    const { clock, database, log, timeoutMs } = this.options;
    const sentAt = clock.now();
    const result = await this.attempt(delivery, sentAt);
    const now = clock.now();
    const attempts = delivery.attempts + 1;
    const delivered = result.status !== null && result.status >= 200 && result.status < 300;
    let disable: string | null = null;
    let nextAttemptAt: EpochMillis | null = null;
    if (!delivered) {
      if (result.status === 410) disable = 'the receiver answered 410 Gone';
      else if (delivery.failing_since !== null && now - delivery.failing_since > scheduleSpanMs)
        disable = `failing since ${new Date(delivery.failing_since).toISOString()}, longer than the retry schedule`;
      const delay = disable === null ? retryDelay(attempts, this.options.random) : null;
      nextAttemptAt = delay === null ? null : addMillis(now, delay);
    }
    await recordAttempt(database, delivery, this.owner, { sentAt, now, attempts, delivered, result, nextAttemptAt, disable });
    this.options.metrics?.webhookAttempt(
      delivered ? 'delivered' : disable !== null ? 'endpoint_disabled' : nextAttemptAt === null ? 'failed' : 'retrying',
    );
    if (disable !== null) log.warn({ endpoint_id: delivery.endpoint_id, url: delivery.url, reason: disable }, 'webhook endpoint disabled');
    else if (!delivered)
      log.info(
        {
          delivery_id: delivery.id,
          endpoint_id: delivery.endpoint_id,
          attempts,
          status: result.status,
          error: result.error,
          timeout_ms: timeoutMs,
        },
        nextAttemptAt === null ? 'webhook delivery failed: no attempts left' : 'webhook delivery attempt failed',
      );
    return disable !== null;
  }

  private attempt(delivery: DueDelivery, sentAt: EpochMillis): Promise<AttemptResult> {
    // `data` is the resource as the API answers it, so in the API's spelling; it is signed as sent.
    const body = this.options.wireNames === 'slack' ? slackKeysInJson(delivery.payload) : delivery.payload;
    const secrets = signingSecrets(delivery, sentAt);
    return sendSignedWebhook({ url: delivery.url, secrets, webhookId: delivery.webhook_id, body, sentAt }, this.options);
  }
}
