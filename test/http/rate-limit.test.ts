import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { RateLimiter } from '../../src/http/rate-limit.js';
import { addressBucket } from '../../src/http/rate-limit-address.js';
import { MemoryRateLimitStore } from '../../src/http/rate-limit-stores/memory-store.js';
import { revokeApiKey } from '../../src/modules/api-keys/api-keys.commands.js';
import { durationMs, durationSeconds, epochMillis } from '../../src/shared/time.js';
import { describeEachEngine, TestClock } from '../support/harness.js';
import { createTestRoutes } from './test-routes.js';

describe('rate-limit building blocks', () => {
  it('buckets IPv4 addresses as they are and IPv6 addresses by their /64', () => {
    assert.equal(addressBucket('203.0.113.7'), '203.0.113.7');
    assert.equal(addressBucket('::ffff:203.0.113.7'), '203.0.113.7');
    assert.equal(addressBucket('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64');
    assert.equal(addressBucket('2001:DB8:1:2::9'), '2001:db8:1:2::/64');
    assert.equal(addressBucket('2001:db8::1'), '2001:db8:0:0::/64');
    assert.equal(addressBucket('fe80::1%eth0'), 'fe80:0:0:0::/64');
    assert.notEqual(addressBucket('2001:db8:1:3::1'), addressBucket('2001:db8:1:2::1'));
  });

  it('counts per bucket in fixed windows aligned to the epoch, and starts afresh in the next window', async () => {
    const store = new MemoryRateLimitStore();
    assert.deepEqual(await store.increment('a', durationMs(1000), epochMillis(5_250)), { count: 1, resetMs: 750 });
    assert.deepEqual(await store.increment('a', durationMs(1000), epochMillis(5_999)), { count: 2, resetMs: 1 });
    assert.deepEqual(await store.increment('b', durationMs(1000), epochMillis(5_999)), { count: 1, resetMs: 1 });
    assert.deepEqual(await store.increment('a', durationMs(1000), epochMillis(6_000)), { count: 1, resetMs: 1000 });
  });

  it('keeps a bounded number of buckets per window: beyond it new buckets share one counter', async () => {
    const store = new MemoryRateLimitStore(2);
    await store.increment('a', durationMs(1000), epochMillis(0));
    await store.increment('b', durationMs(1000), epochMillis(0));
    assert.equal((await store.increment('c', durationMs(1000), epochMillis(0))).count, 1);
    assert.equal((await store.increment('d', durationMs(1000), epochMillis(0))).count, 2);
    assert.equal((await store.increment('a', durationMs(1000), epochMillis(0))).count, 2);
    // The next window drops the whole previous generation.
    assert.equal((await store.increment('c', durationMs(1000), epochMillis(1000))).count, 1);
    assert.equal((await store.increment('d', durationMs(1000), epochMillis(1000))).count, 1);
  });

  it('decides with the limit, what remains, and whole seconds until the reset (at least 1)', async () => {
    const clock = new TestClock(10_900);
    const limiter = new RateLimiter(new MemoryRateLimitStore(), clock, {
      perSecond: 2,
      windowSeconds: durationSeconds(1),
      unauthenticatedPerSecond: 1,
      downloadsPerSecond: 5,
      signInPerMinute: 10,
      calendarPerSecond: 5,
      calendarAddressPerSecond: 5,
      costPerSecond: 100,
    });
    assert.deepEqual(await limiter.consume(limiter.perKey, 'k'), {
      allowed: true,
      policy: 'key',
      limit: 2,
      remaining: 1,
      resetSeconds: 1,
      windowSeconds: durationSeconds(1),
    });
    assert.equal((await limiter.consume(limiter.perKey, 'k')).remaining, 0);
    assert.equal((await limiter.consume(limiter.perKey, 'k')).allowed, false);
    assert.equal((await limiter.consume(limiter.perAddress, 'k')).allowed, true, 'the policies count apart');
    const long = new RateLimiter(new MemoryRateLimitStore(), new TestClock(12_500), {
      perSecond: 2,
      windowSeconds: durationSeconds(10),
      unauthenticatedPerSecond: 1,
      downloadsPerSecond: 5,
      signInPerMinute: 10,
      calendarPerSecond: 5,
      calendarAddressPerSecond: 5,
      costPerSecond: 100,
    });
    assert.equal((await long.consume(long.perKey, 'k')).resetSeconds, 8);
  });
});

const routes = createTestRoutes();
type Headers = Record<string, string | string[] | number | undefined>;

/** Both generations of fields (docs/idempotency-and-rate-limits.md), telling the same budget; the key's is 5, the address's 3. */
function assertRateLimitHeaders(headers: Headers, limit: number, remaining: number): void {
  const policy = limit === 5 ? 'key' : 'address';
  assert.equal(headers['ratelimit-limit'], String(limit));
  assert.equal(headers['ratelimit-remaining'], String(remaining));
  assert.match(String(headers['ratelimit-reset']), /^[1-9]\d*$/);
  // draft-ietf-httpapi-ratelimit-headers-11: a named policy with its quota and window, then what is left of it.
  assert.equal(headers['ratelimit-policy'], `"${policy}";q=${limit};w=1`);
  assert.equal(headers.ratelimit, `"${policy}";r=${remaining};t=${headers['ratelimit-reset']}`);
}

describeEachEngine(
  'rate limits',
  (ctx) => {
    const get = (headers: Record<string, string>, remoteAddress = '198.51.100.1', url = '/admin/v0/test/effects/x') =>
      ctx().request({ method: 'GET', url, headers, remoteAddress });
    const nextWindow = () => ctx().clock.advance(1000);

    it('reports RateLimit and RateLimit-Policy (draft 11) beside RateLimit-Limit, -Remaining and -Reset on every response', async () => {
      nextWindow();
      const { auth } = await ctx().community();
      for (let remaining = 4; remaining >= 0; remaining--) {
        const res = await get(auth);
        assert.equal(res.statusCode, 200);
        assertRateLimitHeaders(res.headers, 5, remaining);
      }
    });

    it('answers 429 rate_limited with Retry-After past the per-key budget, and serves again in the next window', async () => {
      nextWindow();
      const { auth } = await ctx().community();
      for (let i = 0; i < 5; i++) assert.equal((await get(auth)).statusCode, 200);
      const limited = await get(auth);
      assert.equal(limited.statusCode, 429);
      assert.equal(limited.headers['retry-after'], '1');
      assertRateLimitHeaders(limited.headers, 5, 0);
      const body = limited.json<{ success: boolean; error: { code: string; message: string; hint: string } }>();
      assert.equal(body.success, false);
      assert.equal(body.error.code, 'rate_limited');
      assert.ok(body.error.hint.length > 0);
      assert.ok(limited.headers['x-request-id']);
      nextWindow();
      assert.equal((await get(auth)).statusCode, 200);
    });

    it('keeps one budget per key across all endpoints, errors included, and apart from other keys', async () => {
      nextWindow();
      const first = await ctx().community();
      const second = await ctx().community();
      const answers = [
        await get(first.auth),
        await ctx().request({ method: 'POST', url: '/admin/v0/test/effects', headers: first.auth, payload: { name: '' } }),
        await ctx().request({ method: 'POST', url: '/admin/v0/test/effects', headers: first.auth, payload: { name: 'x', missing: true } }),
        await ctx().request({ method: 'DELETE', url: '/admin/v0/test/effects/x', headers: first.auth }),
        await get(first.auth),
      ];
      assert.deepEqual(
        answers.map((res) => res.statusCode),
        [200, 400, 404, 200, 200],
      );
      for (const [i, res] of answers.entries()) assertRateLimitHeaders(res.headers, 5, 4 - i);
      assert.equal((await get(first.auth)).statusCode, 429);
      assert.equal((await get(second.auth)).statusCode, 200);
    });

    it('counts requests without a key per address: 401 with the address budget, then 429, other addresses unaffected', async () => {
      nextWindow();
      for (let remaining = 2; remaining >= 0; remaining--) {
        const res = await get({}, '192.0.2.10');
        assert.equal(res.statusCode, 401);
        assertRateLimitHeaders(res.headers, 3, remaining);
      }
      const limited = await get({}, '192.0.2.10');
      assert.equal(limited.statusCode, 429);
      assert.equal(limited.json<{ error: { code: string } }>().error.code, 'rate_limited');
      assert.equal(limited.headers['retry-after'], '1');
      assert.equal((await get({}, '192.0.2.11')).statusCode, 401);
      nextWindow();
      assert.equal((await get({}, '192.0.2.10')).statusCode, 401);
    });

    it('does not let keys be guessed at speed: of 20 concurrent wrong keys from one address at most 3 are looked up', async () => {
      nextWindow();
      const guesses = await Promise.all(
        Array.from({ length: 20 }, () => get({ authorization: `Bearer ca_${randomUUID().replace(/-/g, '')}` }, '192.0.2.20')),
      );
      const statuses = guesses.map((res) => res.statusCode);
      assert.equal(statuses.filter((s) => s === 401).length, 3);
      assert.equal(statuses.filter((s) => s === 429).length, 17);
      // While the address is over its budget, even a valid key it has never used gets no answer.
      const { auth } = await ctx().community();
      assert.equal((await get(auth, '192.0.2.20')).statusCode, 429);
    });

    it('does not throttle a valid key by its address: a key that authenticated is counted against its own budget only', async () => {
      nextWindow();
      const { auth } = await ctx().community();
      assert.equal((await get(auth, '192.0.2.30')).statusCode, 200);
      for (let i = 0; i < 3; i++) await get({}, '192.0.2.30');
      assert.equal((await get({}, '192.0.2.30')).statusCode, 429);
      const res = await get(auth, '192.0.2.30');
      assert.equal(res.statusCode, 200);
      assertRateLimitHeaders(res.headers, 5, 3);
    });

    it('looks a new key up once for a burst of concurrent requests with it, so a valid burst is not refused', async () => {
      nextWindow();
      const { auth } = await ctx().community();
      const burst = await Promise.all(Array.from({ length: 5 }, () => get(auth, '192.0.2.40')));
      assert.deepEqual(
        burst.map((res) => res.statusCode),
        [200, 200, 200, 200, 200],
      );
      // The burst cost its address one request at most.
      assertRateLimitHeaders((await get({}, '192.0.2.40')).headers, 3, 1);
    });

    it('counts a once-valid key that is now revoked against its address', async () => {
      nextWindow();
      const { auth, keyId } = await ctx().community();
      assert.equal((await get(auth, '192.0.2.50')).statusCode, 200);
      await revokeApiKey({ database: ctx().database, clock: ctx().clock }, keyId);
      ctx().clock.advance(1001); // past the authenticator's one-second cache
      const refused = await get(auth, '192.0.2.50');
      assert.equal(refused.statusCode, 401);
      assertRateLimitHeaders(refused.headers, 3, 2);
      for (let i = 0; i < 2; i++) assert.equal((await get(auth, '192.0.2.50')).statusCode, 401);
      assert.equal((await get(auth, '192.0.2.50')).statusCode, 429);
    });

    it('exempts health, docs and unknown routes: no budget spent, no RateLimit headers', async () => {
      nextWindow();
      for (const url of ['/healthz', '/readyz', '/admin/v0/openapi.json', '/admin/v0/no-such-thing']) {
        for (let i = 0; i < 6; i++) {
          const res = await get({}, '192.0.2.60', url);
          assert.notEqual(res.statusCode, 429, url);
          assert.equal(res.headers['ratelimit-limit'], undefined, url);
        }
      }
      assert.equal((await get({}, '192.0.2.60')).statusCode, 401);
    });

    it('stores no idempotent response for a rate-limited request', async () => {
      nextWindow();
      const { auth } = await ctx().community();
      for (let i = 0; i < 5; i++) await get(auth);
      const key = randomUUID();
      const post = () =>
        ctx().request({
          method: 'POST',
          url: '/admin/v0/test/effects',
          headers: { ...auth, 'idempotency-key': key },
          payload: { name: 'limited' },
        });
      assert.equal((await post()).statusCode, 429);
      nextWindow();
      const res = await post();
      assert.equal(res.statusCode, 201);
      assert.equal(res.headers['x-idempotent-replayed'], undefined);
    });
  },
  { env: { RATE_LIMIT_PER_SECOND: '5', RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '3' }, beforeReady: routes.register },
);
