import { Counter, collectDefaultMetrics, Gauge, type LabelValues, Registry } from 'prom-client';
import { RequestDurations } from './request-durations.js';

/** Every metric of this service starts with this, so it never clashes with another exporter's. */
const metricPrefix = 'community_admin_';

/**
 * prom-client's default Node metrics include three gauges named `*_total`, which Prometheus keeps
 * for counters (promtool refuses them). Their per-type siblings (`nodejs_active_handles{type}` …)
 * carry the same numbers: `sum()` of them is the total.
 */
const misnamedDefaultGauges = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

export type IdempotencyOutcome = 'replayed' | 'in_flight' | 'mismatch';
export type WebhookAttemptOutcome = 'delivered' | 'retrying' | 'failed' | 'endpoint_disabled';

/** What the hot paths and workers report; a no-op when metrics are off, so they cost nothing then. */
export interface Metrics {
  readonly registry: Registry | null;
  /** One answered request: its route template (never the raw path), method, status and duration. */
  requestDone(route: string, method: string, statusCode: number, seconds: number, principal: boolean): void;
  idempotency(outcome: IdempotencyOutcome): void;
  webhookAttempt(outcome: WebhookAttemptOutcome): void;
}

export const noMetrics: Metrics = {
  registry: null,
  requestDone: () => {},
  idempotency: () => {},
  webhookAttempt: () => {},
};

/** Methods the router serves; anything else (rare, and would make a label value per spelling) is `OTHER`. */
const knownMethods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const statusClasses = ['1xx', '1xx', '2xx', '3xx', '4xx', '5xx'];

type CounterChild = ReturnType<Counter<string>['labels']>;

/** The Prometheus metrics of one running app, in their own registry (several apps in one test process do not mix). */
export class PrometheusMetrics implements Metrics {
  readonly registry = new Registry();
  private readonly duration: RequestDurations;
  private readonly rejected: Counter<'policy'>;
  private readonly replays: Counter<'outcome'>;
  private readonly attempts: Counter<'outcome'>;
  /** Label children by their values: a Map probe per count instead of prom-client's label hashing. */
  private readonly children = new Map<Counter<string>, Map<string, CounterChild>>();

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    for (const name of misnamedDefaultGauges) this.registry.removeSingleMetric(name);
    const registers = [this.registry];
    this.duration = new RequestDurations(
      `${metricPrefix}http_request_duration_seconds`,
      'Time from receiving a request to sending its answer, by route template, method and status class.',
      ['route', 'method', 'status_class'],
    );
    this.duration.register(this.registry);
    this.rejected = new Counter({
      name: `${metricPrefix}rate_limit_rejections_total`,
      help: 'Requests refused with 429, by budget: key (per API key), address (requests without a valid key), chat_events (per Slack workspace).',
      labelNames: ['policy'],
      registers,
    });
    this.replays = new Counter({
      name: `${metricPrefix}idempotency_outcomes_total`,
      help: 'Requests with an Idempotency-Key that did not run: replayed (stored answer sent), in_flight (409, the first is still running), mismatch (key reused with another request).',
      labelNames: ['outcome'],
      registers,
    });
    this.attempts = new Counter({
      name: `${metricPrefix}webhook_delivery_attempts_total`,
      help: 'Webhook delivery attempts by outcome: delivered, retrying (failed, retried later), failed (no attempts left), endpoint_disabled.',
      labelNames: ['outcome'],
      registers,
    });
  }

  requestDone(route: string, method: string, statusCode: number, seconds: number, principal: boolean): void {
    const knownMethod = knownMethods.has(method) ? method : 'OTHER';
    const statusClass = statusClasses[Math.floor(statusCode / 100)] ?? '5xx';
    this.duration.observe(`${route} ${knownMethod} ${statusClass}`, [route, knownMethod, statusClass], seconds);
    // 429 is only ever the rate limit's answer (docs/idempotency-and-rate-limits.md).
    if (statusCode === 429) this.count(this.rejected, route === '/chat/events' ? 'chat_events' : principal ? 'key' : 'address');
  }

  idempotency(outcome: IdempotencyOutcome): void {
    this.count(this.replays, outcome);
  }

  webhookAttempt(outcome: WebhookAttemptOutcome): void {
    this.count(this.attempts, outcome);
  }

  /** A gauge read when Prometheus scrapes (never on the hot path). */
  gauge<L extends string>(name: string, help: string, labelNames: L[], collect: (gauge: Gauge<L>) => Promise<void> | void): void {
    new Gauge<L>({
      name: `${metricPrefix}${name}`,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        await collect(this);
      },
    });
  }

  /** A counter whose value is kept elsewhere (a cache's hit count) and copied in when Prometheus scrapes. */
  mirroredCounter<L extends string>(name: string, help: string, labelNames: L[], read: () => [Record<L, string>, number][]): void {
    const seen = new Map<string, number>();
    new Counter<L>({
      name: `${metricPrefix}${name}`,
      help,
      labelNames,
      registers: [this.registry],
      collect() {
        for (const [labels, value] of read()) {
          const key = JSON.stringify(labels);
          const delta = value - (seen.get(key) ?? 0);
          seen.set(key, value);
          // Never negative: a counter that went down (a cache replaced) starts again from its new value.
          this.inc(labels as LabelValues<L>, Math.max(0, delta));
        }
      },
    });
  }

  private count(counter: Counter<string>, value: string): void {
    let children = this.children.get(counter);
    if (!children) {
      children = new Map();
      this.children.set(counter, children);
    }
    let child = children.get(value);
    if (!child) {
      child = counter.labels(value);
      children.set(value, child);
    }
    child.inc();
  }
}
