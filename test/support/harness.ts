import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import { type Database, type Engine, ensurePostgresSchema, migrateToLatest, openDatabase } from '../../src/db/database.js';
import type { AppServices } from '../../src/dependencies.js';
import { createApiKey } from '../../src/modules/api-keys/api-keys.commands.js';
import { createCommunity } from '../../src/modules/communities/communities.commands.js';
import type { Clock } from '../../src/shared/clock.js';
import { type EpochMillis, epochMillis } from '../../src/shared/time.js';

export const postgresUrl = process.env.TEST_DATABASE_URL ?? '';
export const redisUrl = process.env.TEST_REDIS_URL ?? '';

export const redisSkipReason = redisUrl
  ? false
  : 'Redis suite skipped: TEST_REDIS_URL is not set (run e.g. TEST_REDIS_URL=redis://127.0.0.1:6379 npm test)';

/** A Redis key prefix of its own for one test run, so parallel runs sharing a Redis never collide. */
export const uniqueRedisPrefix = (label = 'test'): string => `ca-${label}-${randomBytes(6).toString('hex')}:`;

export const postgresSkipReason = postgresUrl
  ? false
  : 'PostgreSQL suite skipped: TEST_DATABASE_URL is not set (run e.g. TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm test)';

/** A clock the test moves by hand. */
export class TestClock implements Clock {
  constructor(private current = Date.parse('2026-11-21T12:00:00.000Z')) {}
  now(): EpochMillis {
    return epochMillis(this.current);
  }
  set(iso: string | number): void {
    this.current = typeof iso === 'number' ? iso : Date.parse(iso);
  }
  advance(ms: number): void {
    this.current += ms;
  }
}

/** A database of one engine, private to one test file, removed afterwards. */
export interface TestDatabase {
  engine: Engine;
  database: Database;
  /** DATABASE_URL that reaches this same database from a child process (CLI, real server). */
  url: string;
  /** Environment for a child process (PostgreSQL needs the schema in the search path). */
  env: Record<string, string>;
  drop(): Promise<void>;
}

/** Creates a fresh database of the engine: a temp SQLite file, or a PostgreSQL schema of its own. */
export async function createTestDatabase(engine: Engine): Promise<TestDatabase> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'community-admin-test-'));
    const path = join(dir, 'test.db');
    const database = openDatabase({ engine: 'sqlite', path });
    await migrateToLatest(database);
    return {
      engine,
      database,
      url: `sqlite:${path}`,
      env: { DATABASE_URL: `sqlite:${path}` },
      drop: async () => {
        await database.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const schema = `test_${randomBytes(6).toString('hex')}`;
  await ensurePostgresSchema(postgresUrl, schema);
  const database = openDatabase({ engine: 'postgres', url: postgresUrl }, { schema, poolSize: 5 });
  await migrateToLatest(database);
  const separator = postgresUrl.includes('?') ? '&' : '?';
  const url = `${postgresUrl}${separator}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  return {
    engine,
    database,
    url,
    env: { DATABASE_URL: url },
    drop: async () => {
      await database.close();
      const client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    },
  };
}

/** The engines a suite runs on, each with its skip reason (PostgreSQL only with TEST_DATABASE_URL). */
export const engines: { engine: Engine; skip: string | false }[] = [
  { engine: 'sqlite', skip: false },
  { engine: 'postgres', skip: postgresSkipReason },
];

export interface TestApp {
  engine: Engine;
  app: FastifyInstance;
  database: Database;
  clock: TestClock;
  config: Config;
  testDb: TestDatabase;
  /** Creates a community with a key; returns its id and the Authorization header to send. */
  community(plan?: string, name?: string): Promise<{ id: string; key: string; keyId: string; auth: { authorization: string } }>;
  /** app.inject with JSON parsed into `json`. */
  request(options: InjectOptions): Promise<LightMyRequestResponse & { json: <T = Record<string, unknown>>() => T }>;
}

export interface HarnessOptions {
  env?: Record<string, string>;
  services?: Partial<AppServices>;
  /** Runs on the built app before `ready()`: tests register test-only routes here. */
  beforeReady?: (app: FastifyInstance) => void | Promise<void>;
}

/** Test config: the operator defaults, with rate limits (and the cost budget) high enough not to interfere. */
export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({
    RATE_LIMIT_PER_SECOND: '100000',
    RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '100000',
    RATE_LIMIT_SIGN_IN_PER_MINUTE: '100000',
    RATE_LIMIT_CALENDAR_PER_SECOND: '100000',
    RATE_LIMIT_CALENDAR_ADDRESS_PER_SECOND: '100000',
    RATE_LIMIT_COST_PER_SECOND: '100000',
    LOG_LEVEL: 'silent',
    ...env,
  });
}

/** Builds the app on a fresh database of the engine; everything is torn down when the suite ends. */
export async function startTestApp(engine: Engine, options: HarnessOptions = {}): Promise<TestApp> {
  const testDb = await createTestDatabase(engine);
  const clock = new TestClock();
  const config = testConfig(options.env);
  const app = await buildApp({ config, database: testDb.database, clock, logger: false, services: options.services });
  await options.beforeReady?.(app);
  await app.ready();
  return {
    engine,
    app,
    database: testDb.database,
    clock,
    config,
    testDb,
    async community(plan = 'enterprise', name = 'Test community') {
      const community = await createCommunity({ database: testDb.database, clock }, { name: name, plan: plan });
      const key = await createApiKey({ database: testDb.database, clock, communityId: community.id }, { label: 'test' });
      return { id: community.id, key: key.key, keyId: key.id, auth: { authorization: `Bearer ${key.key}` } };
    },
    async request(injectOptions) {
      const response = await app.inject(injectOptions);
      return Object.assign(response, { json: <T>() => JSON.parse(response.body) as T });
    },
  };
}

/**
 * Runs `define` once per engine inside a describe block; the app is built before the block's tests
 * and closed after them. PostgreSQL is skipped, saying why, when TEST_DATABASE_URL is not set.
 */
export function describeEachEngine(name: string, define: (ctx: () => TestApp) => void, options: HarnessOptions = {}): void {
  for (const { engine, skip } of engines) {
    describe(`${name} [${engine}]`, { skip }, () => {
      let current: TestApp | undefined;
      before(async () => {
        current = await startTestApp(engine, options);
      });
      after(async () => {
        if (!current) return;
        await current.app.close();
        await current.testDb.drop();
      });
      define(() => {
        if (!current) throw new Error('test app not started');
        return current;
      });
    });
  }
}
