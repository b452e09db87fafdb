import assert from 'node:assert/strict';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { buildApp } from '../../src/app.js';
import { RedisRateLimitStore, type StoreLog } from '../../src/http/rate-limit-stores/redis-store.js';
import { durationMs, epochMillis } from '../../src/shared/time.js';
import { redisSkipReason, redisUrl, startTestApp, type TestApp, uniqueRedisPrefix } from '../support/harness.js';
import { createTestRoutes } from './test-routes.js';

/** A log that remembers what it was told. */
function recordingLog(): StoreLog & { warnings: string[]; infos: string[] } {
  const warnings: string[] = [];
  const infos: string[] = [];
  return { warnings, infos, warn: (_details, message) => warnings.push(message), info: (_details, message) => infos.push(message) };
}

/** A TCP server that accepts connections and never answers: a Redis that hangs. */
async function silentServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `redis://127.0.0.1:${port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const routes = createTestRoutes();

describe('rate limits when Redis is unreachable', () => {
  for (const [name, target] of [
    ['a closed port', async () => ({ url: 'redis://127.0.0.1:1', close: async () => {} })],
    ['a server that never answers', silentServer],
  ] as const) {
    it(`keeps answering quickly with ${name}, limiting per instance, and closes without waiting`, async () => {
      const redis = await target();
      const started = performance.now();
      const t = await startTestApp('sqlite', {
        env: { REDIS_URL: redis.url, RATE_LIMIT_PER_SECOND: '5' },
        beforeReady: routes.register,
      });
      try {
        assert.ok(performance.now() - started < 3000, 'startup waits on Redis for a bounded time only');
        const { auth } = await t.community();
        const timed = performance.now();
        const statuses: number[] = [];
        for (let i = 0; i < 6; i++) {
          statuses.push((await t.request({ method: 'GET', url: '/admin/v0/test/effects/x', headers: auth })).statusCode);
        }
        assert.ok(performance.now() - timed < 1000, `6 requests took ${Math.round(performance.now() - timed)} ms`);
        assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429]);
      } finally {
        const closing = performance.now();
        await t.app.close();
        await t.testDb.drop();
        assert.ok(performance.now() - closing < 1000, 'closing does not wait on Redis');
        await redis.close();
      }
    });
  }

  it('logs the outage once, however many requests fall back', async () => {
    const log = recordingLog();
    const store = new RedisRateLimitStore({ url: 'redis://127.0.0.1:1', keyPrefix: 'x:', log });
    await store.start();
    for (let i = 0; i < 50; i++) await store.increment('b', durationMs(1000), epochMillis(0));
    assert.equal((await store.increment('b', durationMs(1000), epochMillis(0))).count, 51, 'counted in memory meanwhile');
    await store.close();
    assert.equal(log.warnings.length, 1);
  });
});

describe('rate limits shared through Redis', { skip: redisSkipReason }, () => {
  it('gives instances with one prefix one budget, and instances with another prefix their own', async () => {
    const prefix = uniqueRedisPrefix('store');
    const stores = [prefix, prefix, uniqueRedisPrefix('other')].map(
      (keyPrefix) => new RedisRateLimitStore({ url: redisUrl, keyPrefix, log: recordingLog() }),
    );
    await Promise.all(stores.map((store) => store.start()));
    try {
      const [a, b, other] = stores as [RedisRateLimitStore, RedisRateLimitStore, RedisRateLimitStore];
      assert.deepEqual(await a.increment('key:k', durationMs(1000), epochMillis(7_400)), { count: 1, resetMs: 600 });
      assert.equal((await b.increment('key:k', durationMs(1000), epochMillis(7_500))).count, 2);
      assert.equal((await other.increment('key:k', durationMs(1000), epochMillis(7_500))).count, 1);
      assert.equal((await a.increment('key:k', durationMs(1000), epochMillis(8_000))).count, 1, 'a new window starts at zero');
      const client = new Redis(redisUrl);
      const ttl = await client.pttl(`${prefix}rl:key:k:7`);
      client.disconnect();
      assert.ok(ttl > 0 && ttl <= 2000, `counters expire with their window (pttl ${ttl})`);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });

  describe('two app instances on one database and one Redis', () => {
    let first: TestApp;
    let second: Awaited<ReturnType<typeof buildApp>>;
    before(async () => {
      const env = { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: uniqueRedisPrefix('apps'), RATE_LIMIT_PER_SECOND: '6' };
      first = await startTestApp('sqlite', { env, beforeReady: routes.register });
      second = await buildApp({ config: first.config, database: first.database, clock: first.clock, logger: false });
      routes.register(second);
      await second.ready();
    });
    after(async () => {
      await second.close();
      await first.app.close();
      await first.testDb.drop();
    });

    it('spends one budget per key across both instances', async () => {
      const { auth } = await first.community();
      const ask = (app: TestApp['app']) => app.inject({ method: 'GET', url: '/admin/v0/test/effects/x', headers: auth });
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        statuses.push((await ask(first.app)).statusCode, (await ask(second)).statusCode);
      }
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 429, 429]);
      first.clock.advance(1000);
      assert.equal((await ask(second)).statusCode, 200);
    });
  });

  it('falls back while Redis is away, logs it once, and shares the budget again once it is back', async () => {
    const proxy = await tcpProxy(new URL(redisUrl));
    const log = recordingLog();
    const keyPrefix = uniqueRedisPrefix('proxy');
    const store = new RedisRateLimitStore({ url: proxy.url, keyPrefix, log });
    const peer = new RedisRateLimitStore({ url: redisUrl, keyPrefix, log: recordingLog() });
    await Promise.all([store.start(), peer.start()]);
    try {
      assert.equal((await store.increment('b', durationMs(60_000), epochMillis(0))).count, 1);
      assert.equal((await peer.increment('b', durationMs(60_000), epochMillis(0))).count, 2, 'shared while connected');
      await proxy.stop();
      const during = await Promise.all([
        store.increment('b', durationMs(60_000), epochMillis(0)),
        store.increment('b', durationMs(60_000), epochMillis(0)),
      ]);
      assert.deepEqual(
        during.map((c) => c.count),
        [1, 2],
        'counted in this instance only',
      );
      assert.equal(log.warnings.length, 1);
      await proxy.resume();
      const deadline = Date.now() + 10_000;
      while (log.infos.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(log.infos.length, 1, 'the recovery is logged');
      assert.equal((await store.increment('b', durationMs(60_000), epochMillis(0))).count, 3, 'back on the shared counter');
    } finally {
      await Promise.all([store.close(), peer.close()]);
      await proxy.stop();
    }
  });

  it('does not wait long on a Redis that stops answering: falls back after a short timeout', async () => {
    const proxy = await tcpProxy(new URL(redisUrl));
    const log = recordingLog();
    const store = new RedisRateLimitStore({ url: proxy.url, keyPrefix: uniqueRedisPrefix('frozen'), log });
    await store.start();
    try {
      assert.equal((await store.increment('b', durationMs(60_000), epochMillis(0))).count, 1);
      proxy.freeze();
      const started = performance.now();
      const counts = await Promise.all(Array.from({ length: 10 }, () => store.increment('b', durationMs(60_000), epochMillis(0))));
      const waited = performance.now() - started;
      assert.ok(waited < 500, `waited ${Math.round(waited)} ms`);
      assert.deepEqual(
        counts.map((c) => c.count).sort((x, y) => x - y),
        [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
      );
      // Within the cool-off Redis is not tried at all.
      const next = performance.now();
      assert.equal((await store.increment('b', durationMs(60_000), epochMillis(0))).count, 11);
      assert.ok(performance.now() - next < 20);
      assert.equal(log.warnings.length, 1);
    } finally {
      proxy.thaw();
      await store.close();
      await proxy.stop();
    }
  });
});

interface TcpProxy {
  url: string;
  /** Drops every connection and stops listening. */
  stop: () => Promise<void>;
  /** Listens again on the same port. */
  resume: () => Promise<void>;
  /** Holds bytes in both directions (a Redis that hangs) until thaw(), which delivers them in order. */
  freeze: () => void;
  thaw: () => void;
}

/** A TCP proxy to Redis that the test can cut, restore, freeze and thaw. */
async function tcpProxy(target: URL): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const held: (() => void)[] = [];
  let frozen = false;
  let server: Server | null = null;
  let port = 0;
  const forward = (from: Socket, to: Socket) =>
    from.on('data', (chunk: Buffer) => {
      if (frozen) held.push(() => to.write(chunk));
      else to.write(chunk);
    });
  const listen = async () => {
    const listening = createServer((client) => {
      const upstream = connect(Number(target.port || 6379), target.hostname);
      sockets.add(client).add(upstream);
      forward(client, upstream);
      forward(upstream, client);
      const drop = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
    });
    await new Promise<void>((resolve) => listening.listen(port, '127.0.0.1', resolve));
    port = (listening.address() as { port: number }).port;
    server = listening;
  };
  const stop = async () => {
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = null;
  };
  await listen();
  return {
    url: `redis://127.0.0.1:${port}`,
    stop,
    resume: listen,
    freeze: () => {
      frozen = true;
    },
    thaw: () => {
      frozen = false;
      for (const deliver of held.splice(0)) deliver();
    },
  };
}
