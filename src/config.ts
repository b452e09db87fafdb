import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { daysMs } from './shared/duration.js';

/** How long delivered and failed webhook deliveries are kept by default (WEBHOOK_RETENTION_DAYS). */
export const defaultWebhookRetentionDays = 30;

import { type DurationMs, type DurationSeconds, durationMs, durationSeconds } from './shared/time.js';

/** The environment the service reads; every variable of the operator interface is here. */
const EnvironmentSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
  HOST: Type.String({ minLength: 1, default: '127.0.0.1' }),
  DATABASE_URL: Type.String({ pattern: '^(sqlite:.+|postgres(ql)?://.+)$', default: 'sqlite:./data/community.db' }),
  REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://.+' })),
  REDIS_KEY_PREFIX: Type.String({ pattern: '^[A-Za-z0-9:_.-]{1,64}$', default: 'community-admin:' }),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level)),
    { default: 'info' },
  ),
  LOG_FORMAT: Type.Union([Type.Literal('auto'), Type.Literal('json'), Type.Literal('pretty')], { default: 'auto' }),
  CHAT_API_URL: Type.String({ pattern: '^https?://.+', default: 'https://slack.com/api/' }),
  CHAT_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 60000, default: 5000 }),
  RATE_LIMIT_PER_SECOND: Type.Integer({ minimum: 1, default: 50 }),
  RATE_LIMIT_WINDOW_SECONDS: Type.Integer({ minimum: 1, maximum: 3600, default: 1 }),
  RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: Type.Integer({ minimum: 1, default: 10 }),
  RATE_LIMIT_DOWNLOADS_PER_SECOND: Type.Integer({ minimum: 1, default: 200 }),
  RATE_LIMIT_SIGN_IN_PER_MINUTE: Type.Integer({ minimum: 1, default: 10 }),
  RATE_LIMIT_CALENDAR_PER_SECOND: Type.Integer({ minimum: 1, default: 10 }),
  RATE_LIMIT_CALENDAR_ADDRESS_PER_SECOND: Type.Integer({ minimum: 1, default: 100 }),
  CALENDAR_FEED_PAST_DAYS: Type.Integer({ minimum: 0, maximum: 3650, default: 30 }),
  RATE_LIMIT_COST_PER_SECOND: Type.Integer({ minimum: 1, default: 50 }),
  CORS_ORIGINS: Type.String({ default: '' }),
  REQUEST_TIMEOUT_MS: Type.Integer({ minimum: 1000, default: 30000 }),
  REQUEST_DEADLINE_MS: Type.Integer({ minimum: 1000, maximum: 600000, default: 15000 }),
  DATABASE_STATEMENT_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 600000, default: 5000 }),
  DATABASE_CONNECT_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 60000, default: 1500 }),
  RESPONSE_CACHE_MB: Type.Integer({ minimum: 0, maximum: 4096, default: 16 }),
  SEARCH_RANKINGS_MB: Type.Integer({ minimum: 0, maximum: 4096, default: 64 }),
  TRUST_PROXY: Type.Union([Type.Literal('true'), Type.Literal('false')], { default: 'false' }),
  WEBHOOK_ALLOW_PRIVATE: Type.Union([Type.Literal('true'), Type.Literal('false')], { default: 'false' }),
  WEBHOOK_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 60000, default: 5000 }),
  WEBHOOK_RETENTION_DAYS: Type.Integer({ minimum: 1, maximum: 3650, default: defaultWebhookRetentionDays }),
  ACTIVITY_RETENTION_DAYS: Type.Integer({ minimum: 0, maximum: 36500, default: 365 }),
  SECRETS_KEY: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9+/=_-]{43,88}$' })),
  SECRETS_KEY_PREVIOUS: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9+/=_,-]{43,1000}$' })),
  CHAT_EVENTS_PER_SECOND: Type.Integer({ minimum: 1, default: 200 }),
  WIRE_NAMES: Type.Union([Type.Literal('chat'), Type.Literal('slack')], { default: 'chat' }),
  FILES_MAX_MB: Type.Integer({ minimum: 1, maximum: 1024, default: 10 }),
  PUBLIC_BASE_URL: Type.Optional(Type.String({ pattern: '^https?://[^/?#\\s]+(/[^?#\\s]*)?$', maxLength: 512 })),
  METRICS_TOKEN: Type.Optional(Type.String({ minLength: 16, maxLength: 256, pattern: '^[\\x21-\\x7e]+$' })),
  METRICS_PORT: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
  CONSOLE: Type.Union([Type.Literal('true'), Type.Literal('false')], { default: 'true' }),
  CONSOLE_SESSION_HOURS: Type.Integer({ minimum: 1, maximum: 168, default: 12 }),
});

type Environment = Static<typeof EnvironmentSchema>;

/** How long one statement may run, and how long opening a connection may take. */
export interface DatabaseTimeouts {
  statementMs: DurationMs;
  connectMs: DurationMs;
}

export type DatabaseTarget = { engine: 'sqlite'; path: string } | { engine: 'postgres'; url: string };

export interface Config {
  port: number;
  host: string;
  database: DatabaseTarget;
  redisUrl: string | null;
  /** Prefix of every Redis key, so that several deployments (or test runs) can share one Redis. */
  redisKeyPrefix: string;
  logLevel: string;
  /** `pretty` (pino-pretty), `json` (one JSON object a line), or `auto`: pretty when stdout is a terminal. */
  logFormat: 'auto' | 'json' | 'pretty';
  chatApiUrl: string;
  chatTimeoutMs: DurationMs;
  rateLimit: {
    perSecond: number;
    windowSeconds: DurationSeconds;
    unauthenticatedPerSecond: number;
    downloadsPerSecond: number;
    /** Console sign-ins (token exchanges) per address per minute: each one is a guess at a token. */
    signInPerMinute: number;
    /** Calendar feeds (docs/calendar-feeds.md): per token, and per address across tokens. */
    calendarPerSecond: number;
    calendarAddressPerSecond: number;
    /** Cost units per window per API key (searches: docs/idempotency-and-rate-limits.md, "Cost budget"). */
    costPerSecond: number;
  };
  /** Calendar feeds show events ending this many days ago or later, and cancellations for as long (docs/calendar-feeds.md). */
  calendarFeedPastDays: number;
  corsOrigins: string[];
  requestTimeoutMs: DurationMs;
  /** How long a request may run once received before it answers 503 request_timeout and its write is rolled back. */
  requestDeadlineMs: DurationMs;
  /** Bounds on the database's silence (docs/operations.md, "Database outages"). */
  databaseTimeouts: DatabaseTimeouts;
  trustProxy: boolean;
  /** Memory for serialised answers of hot reads (ResponseCache); 0 turns the cache off. */
  responseCacheMb: number;
  /** Memory for searches' whole ranked results (RankedListCache, docs/search.md); 0 ranks every page anew. */
  searchRankingsMb: number;
  /** Outbound webhooks: private targets and plain http allowed (tests, local set-ups); per-attempt timeout; how long settled deliveries are kept. */
  webhooks: { allowPrivate: boolean; timeoutMs: DurationMs; retentionMs: DurationMs };
  /** How long activity records are kept (docs/activity.md); 0 keeps every record. */
  activityRetentionDays: number;
  /** The key that seals chat secrets at rest (docs/chat.md), null when unset; previous keys still open old values. */
  secrets: { key: string | null; previousKeys: string[] };
  /** Budget of POST /chat/events per community per second (it has no API key, so not the per-address one). */
  chatEventsPerSecond: number;
  /** `slack`: the hosted product's spelling of identifiers on the wire (src/wire-names/). */
  wireNames: 'chat' | 'slack';
  /** Uploaded files (docs/files.md): the largest upload, and the base of their public URLs (null: the listening address). */
  files: { maxBytes: number; publicBaseUrl: string | null };
  /**
   * GET /metrics (Prometheus): off when both are null; with a token it is served beside the API and
   * needs `Authorization: Bearer <token>`; with a port it is served on that port only (bound like HOST).
   */
  metrics: { token: string | null; port: number | null };
  /** The operator's console at /console and its sign-in (docs/console.md); CONSOLE=false turns both off. */
  console: boolean;
  /** How long a console session's key lives (CONSOLE_SESSION_HOURS). */
  consoleSessionMs: DurationMs;
}

export class ConfigError extends Error {}

/**
 * CORS_ORIGINS as a list of exact origins (`scheme://host[:port]`, lowercased as browsers send
 * them). A wildcard, a path or anything that is not an http(s) origin stops the process: a typo
 * must not open the API to every site, nor silently leave it closed.
 */
function parseCorsOrigins(raw: string): string[] {
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  return entries.map((entry) => {
    let origin: string | null = null;
    try {
      const url = new URL(entry);
      const bare = url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password && !entry.includes('*');
      if ((url.protocol === 'https:' || url.protocol === 'http:') && bare) origin = url.origin;
    } catch {
      origin = null;
    }
    if (!origin)
      throw new ConfigError(
        `Invalid configuration: CORS_ORIGINS=${JSON.stringify(raw)} must list origins such as https://admin.example.com`,
      );
    return origin;
  });
}

/** Parses a DATABASE_URL into the engine it names. */
export function parseDatabaseUrl(url: string): DatabaseTarget {
  if (url.startsWith('sqlite:')) return { engine: 'sqlite', path: url.slice('sqlite:'.length) };
  return { engine: 'postgres', url };
}

/** Validates the environment once; a bad value throws a ConfigError naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(EnvironmentSchema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  // Convert turns numeric strings into integers; Default fills what is unset.
  const candidate = Value.Default(EnvironmentSchema, Value.Convert(EnvironmentSchema, raw));
  const firstError = Value.Errors(EnvironmentSchema, candidate).First();
  if (firstError) {
    const variable = firstError.path.replace(/^\//, '') || 'environment';
    throw new ConfigError(`Invalid configuration: ${variable}=${JSON.stringify(raw[variable] ?? '')} ${firstError.message.toLowerCase()}`);
  }
  const parsed = candidate as Environment;
  if (parsed.METRICS_PORT !== undefined && parsed.METRICS_PORT === parsed.PORT)
    throw new ConfigError(
      `Invalid configuration: METRICS_PORT=${parsed.METRICS_PORT} must differ from PORT (metrics are served on a port of their own)`,
    );
  return {
    port: parsed.PORT,
    host: parsed.HOST,
    database: parseDatabaseUrl(parsed.DATABASE_URL),
    redisUrl: parsed.REDIS_URL ?? null,
    redisKeyPrefix: parsed.REDIS_KEY_PREFIX,
    logLevel: parsed.LOG_LEVEL,
    logFormat: parsed.LOG_FORMAT,
    chatApiUrl: parsed.CHAT_API_URL,
    chatTimeoutMs: durationMs(parsed.CHAT_TIMEOUT_MS),
    rateLimit: {
      perSecond: parsed.RATE_LIMIT_PER_SECOND,
      windowSeconds: durationSeconds(parsed.RATE_LIMIT_WINDOW_SECONDS),
      unauthenticatedPerSecond: parsed.RATE_LIMIT_UNAUTHENTICATED_PER_SECOND,
      downloadsPerSecond: parsed.RATE_LIMIT_DOWNLOADS_PER_SECOND,
      signInPerMinute: parsed.RATE_LIMIT_SIGN_IN_PER_MINUTE,
      calendarPerSecond: parsed.RATE_LIMIT_CALENDAR_PER_SECOND,
      calendarAddressPerSecond: parsed.RATE_LIMIT_CALENDAR_ADDRESS_PER_SECOND,
      costPerSecond: parsed.RATE_LIMIT_COST_PER_SECOND,
    },
    calendarFeedPastDays: parsed.CALENDAR_FEED_PAST_DAYS,
    corsOrigins: parseCorsOrigins(parsed.CORS_ORIGINS),
    requestTimeoutMs: durationMs(parsed.REQUEST_TIMEOUT_MS),
    requestDeadlineMs: durationMs(parsed.REQUEST_DEADLINE_MS),
    databaseTimeouts: {
      statementMs: durationMs(parsed.DATABASE_STATEMENT_TIMEOUT_MS),
      connectMs: durationMs(parsed.DATABASE_CONNECT_TIMEOUT_MS),
    },
    trustProxy: parsed.TRUST_PROXY === 'true',
    responseCacheMb: parsed.RESPONSE_CACHE_MB,
    searchRankingsMb: parsed.SEARCH_RANKINGS_MB,
    webhooks: {
      allowPrivate: parsed.WEBHOOK_ALLOW_PRIVATE === 'true',
      timeoutMs: durationMs(parsed.WEBHOOK_TIMEOUT_MS),
      retentionMs: daysMs(parsed.WEBHOOK_RETENTION_DAYS),
    },
    activityRetentionDays: parsed.ACTIVITY_RETENTION_DAYS,
    secrets: {
      key: parsed.SECRETS_KEY ?? null,
      previousKeys: (parsed.SECRETS_KEY_PREVIOUS ?? '')
        .split(',')
        .map((key) => key.trim())
        .filter(Boolean),
    },
    chatEventsPerSecond: parsed.CHAT_EVENTS_PER_SECOND,
    wireNames: parsed.WIRE_NAMES,
    files: {
      maxBytes: parsed.FILES_MAX_MB * 1024 * 1024,
      publicBaseUrl: parsed.PUBLIC_BASE_URL === undefined ? null : parsed.PUBLIC_BASE_URL.replace(/\/+$/, ''),
    },
    metrics: { token: parsed.METRICS_TOKEN ?? null, port: parsed.METRICS_PORT ?? null },
    console: parsed.CONSOLE === 'true',
    consoleSessionMs: durationMs(parsed.CONSOLE_SESSION_HOURS * 3_600_000),
  };
}
