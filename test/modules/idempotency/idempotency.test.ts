import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { parseIdempotencyKey, requestFingerprint } from '../../../src/http/idempotency.js';
import { IdempotencyService } from '../../../src/modules/idempotency/idempotency.commands.js';
import { createTestRoutes, effectId, Gate } from '../../http/test-routes.js';
import { describeEachEngine, type TestApp } from '../../support/harness.js';

describe('Idempotency-Key parsing and fingerprints', () => {
  it('accepts a UUID v4 in any letter case, bare or quoted, as one normalised key', () => {
    const key = '3f2b8c1e-9d4a-4b7e-8f01-2a3b4c5d6e7f';
    assert.equal(parseIdempotencyKey(key), key);
    assert.equal(parseIdempotencyKey(key.toUpperCase()), key);
    assert.equal(parseIdempotencyKey(`"${key}"`), key);
    assert.equal(parseIdempotencyKey(` "${key.toUpperCase()}" `), key);
  });

  it('refuses anything that is not a UUID v4', () => {
    for (const value of [
      '',
      'abc',
      '3f2b8c1e-9d4a-1b7e-8f01-2a3b4c5d6e7f', // version 1
      '3f2b8c1e-9d4a-7b7e-8f01-2a3b4c5d6e7f', // version 7
      '3f2b8c1e-9d4a-4b7e-cf01-2a3b4c5d6e7f', // wrong variant
      '"3f2b8c1e-9d4a-4b7e-8f01-2a3b4c5d6e7f', // one quote
      '3f2b8c1e9d4a4b7e8f012a3b4c5d6e7f', // no dashes
      '{3f2b8c1e-9d4a-4b7e-8f01-2a3b4c5d6e7f}',
      '3f2b8c1e-9d4a-4b7e-8f01-2a3b4c5d6e7f, 3f2b8c1e-9d4a-4b7e-8f01-2a3b4c5d6e7f',
    ]) {
      assert.equal(parseIdempotencyKey(value), null, value);
    }
    assert.equal(parseIdempotencyKey(['3f2b8c1e-9d4a-4b7e-8f01-2a3b4c5d6e7f']), null);
  });

  it('fingerprints the method, the path and the body regardless of key order', () => {
    const base = requestFingerprint('POST', '/a', { x: 1, y: { b: [1, 2], a: null } });
    assert.equal(base, requestFingerprint('POST', '/a', { y: { a: null, b: [1, 2] }, x: 1 }));
    assert.notEqual(base, requestFingerprint('PATCH', '/a', { x: 1, y: { b: [1, 2], a: null } }));
    assert.notEqual(base, requestFingerprint('POST', '/b', { x: 1, y: { b: [1, 2], a: null } }));
    assert.notEqual(base, requestFingerprint('POST', '/a', { x: 1, y: { b: [2, 1], a: null } }));
    assert.notEqual(base, requestFingerprint('POST', '/a', { x: '1', y: { b: [1, 2], a: null } }));
  });
});

const routes = createTestRoutes();

/** Rows stored for a community (the table is only ever read directly to prove that nothing was stored). */
async function storedRows(t: TestApp, communityId: string) {
  return t.database.db.selectFrom('idempotency_keys').selectAll().where('community_id', '=', communityId).execute();
}

describeEachEngine(
  'idempotency keys',
  (ctx) => {
    const post = (auth: { authorization: string }, key: string | null, body: Record<string, unknown>, extra: Record<string, string> = {}) =>
      ctx().request({
        method: 'POST',
        url: '/admin/v0/test/effects',
        headers: { ...auth, ...(key === null ? {} : { 'idempotency-key': key }), ...extra },
        payload: body,
      });
    const effects = (communityId: string, name: string) => routes.state.effects.get(effectId(communityId, name)) ?? 0;

    it('replays a completed request with its status, body and headers, marked X-Idempotent-Replayed', async () => {
      const { id, auth } = await ctx().community();
      const key = randomUUID();
      const first = await post(auth, key, { name: 'replay' }, { 'x-request-id': 'first-request' });
      assert.equal(first.statusCode, 201);
      assert.equal(first.headers['x-idempotent-replayed'], undefined);
      const again = await post(auth, key, { name: 'replay' }, { 'x-request-id': 'second-request' });
      assert.equal(again.statusCode, 201);
      assert.equal(again.headers['x-idempotent-replayed'], 'true');
      assert.equal(again.body, first.body);
      assert.equal(again.headers['content-type'], first.headers['content-type']);
      assert.equal(again.headers.location, '/admin/v0/test/effects/replay');
      assert.equal(again.headers['x-request-id'], 'second-request');
      assert.equal(effects(id, 'replay'), 1);
    });

    it('treats the quoted and upper-case forms as the same key', async () => {
      const { id, auth } = await ctx().community();
      const key = randomUUID();
      assert.equal((await post(auth, key, { name: 'forms' })).statusCode, 201);
      const quoted = await post(auth, `"${key.toUpperCase()}"`, { name: 'forms' });
      assert.equal(quoted.headers['x-idempotent-replayed'], 'true');
      assert.equal(effects(id, 'forms'), 1);
    });

    it('answers 400 idempotency_key_invalid for a malformed key on POST, PATCH and DELETE, and runs nothing', async () => {
      const { id, auth } = await ctx().community();
      const requests = [
        { method: 'POST' as const, url: '/admin/v0/test/effects', payload: { name: 'invalid' } },
        { method: 'PATCH' as const, url: '/admin/v0/test/effects/invalid', payload: { note: 'x' } },
        { method: 'DELETE' as const, url: '/admin/v0/test/effects/invalid' },
      ];
      for (const request of requests) {
        const res = await ctx().request({ ...request, headers: { ...auth, 'idempotency-key': 'not-a-uuid' } });
        assert.equal(res.statusCode, 400, request.method);
        assert.equal(res.json<{ error: { code: string } }>().error.code, 'idempotency_key_invalid');
      }
      assert.equal(effects(id, 'invalid'), 0);
      assert.deepEqual(await storedRows(ctx(), id), []);
    });

    it('ignores the header, even malformed, on GET', async () => {
      const { auth } = await ctx().community();
      const res = await ctx().request({
        method: 'GET',
        url: '/admin/v0/test/effects/x',
        headers: { ...auth, 'idempotency-key': 'nonsense' },
      });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['x-idempotent-replayed'], undefined);
    });

    it('processes requests without the header normally, every time', async () => {
      const { id, auth } = await ctx().community();
      await post(auth, null, { name: 'no-header' });
      await post(auth, null, { name: 'no-header' });
      assert.equal(effects(id, 'no-header'), 2);
    });

    it('answers 422 idempotency_key_reused for the same key with another body, path or method', async () => {
      const { id, auth } = await ctx().community();
      const key = randomUUID();
      assert.equal((await post(auth, key, { name: 'reuse' })).statusCode, 201);
      const otherBody = await post(auth, key, { name: 'reuse', note: 'different' });
      assert.equal(otherBody.statusCode, 422);
      assert.equal(otherBody.json<{ error: { code: string } }>().error.code, 'idempotency_key_reused');
      const otherPath = await ctx().request({
        method: 'DELETE',
        url: '/admin/v0/test/effects/reuse',
        headers: { ...auth, 'idempotency-key': key },
      });
      assert.equal(otherPath.statusCode, 422);
      const otherMethod = await ctx().request({
        method: 'PATCH',
        url: '/admin/v0/test/effects/reuse',
        headers: { ...auth, 'idempotency-key': key },
        payload: { note: 'x' },
      });
      assert.equal(otherMethod.statusCode, 422);
      assert.equal(effects(id, 'reuse'), 1);
    });

    it('scopes keys to the community: another community may use the same key for its own request', async () => {
      const a = await ctx().community();
      const b = await ctx().community();
      const key = randomUUID();
      assert.equal((await post(a.auth, key, { name: 'scope-a' })).statusCode, 201);
      const other = await post(b.auth, key, { name: 'scope-b' });
      assert.equal(other.statusCode, 201);
      assert.equal(other.headers['x-idempotent-replayed'], undefined);
      assert.equal(effects(b.id, 'scope-b'), 1);
      assert.equal(effects(a.id, 'scope-a'), 1);
    });

    it('runs exactly one of 20 concurrent requests with one key; the others get 409 with Retry-After', async () => {
      const { id, auth } = await ctx().community();
      const key = randomUUID();
      const gate = new Gate();
      routes.state.gate = gate;
      try {
        const first = post(auth, key, { name: 'race', hold: true });
        // Only once the first request is in its handler does it hold the claim: sent earlier, one of
        // the others could claim first and wait on the gate that opens after all of them answered.
        await gate.reached;
        const others = await Promise.all(Array.from({ length: 19 }, () => post(auth, key, { name: 'race', hold: true })));
        gate.open();
        const winner = await first;
        const statuses = [winner, ...others].map((res) => res.statusCode).sort();
        assert.deepEqual(statuses, [201, ...Array<number>(19).fill(409)]);
        for (const res of others) {
          assert.equal(res.json<{ error: { code: string } }>().error.code, 'idempotency_key_in_use');
          assert.match(String(res.headers['retry-after']), /^[1-9]\d*$/);
        }
        assert.equal(effects(id, 'race'), 1);
        const later = await post(auth, key, { name: 'race', hold: true });
        assert.equal(later.headers['x-idempotent-replayed'], 'true');
        assert.equal(effects(id, 'race'), 1);
      } finally {
        routes.state.gate = null;
      }
    });

    it('does not store a 5xx: the key is released and a retry runs', async () => {
      const { id, auth } = await ctx().community();
      const key = randomUUID();
      routes.state.failuresLeft = 1;
      const failed = await post(auth, key, { name: 'flaky', fail: true });
      assert.equal(failed.statusCode, 500);
      assert.deepEqual(await storedRows(ctx(), id), []);
      const retried = await post(auth, key, { name: 'flaky', fail: true });
      assert.equal(retried.statusCode, 201);
      assert.equal(retried.headers['x-idempotent-replayed'], undefined);
      assert.equal(effects(id, 'flaky'), 1);
      assert.equal((await post(auth, key, { name: 'flaky', fail: true })).headers['x-idempotent-replayed'], 'true');
    });

    it('stores a 4xx answered by the handler and replays it', async () => {
      const { auth } = await ctx().community();
      const key = randomUUID();
      const first = await post(auth, key, { name: 'missing', missing: true });
      assert.equal(first.statusCode, 404);
      const again = await post(auth, key, { name: 'missing', missing: true });
      assert.equal(again.statusCode, 404);
      assert.equal(again.headers['x-idempotent-replayed'], 'true');
      assert.equal(again.body, first.body);
    });

    it('stores nothing for a request that fails auth, validation or the plan guard', async () => {
      const { id, auth } = await ctx().community('free');
      const key = randomUUID();
      const unauthenticated = await post({ authorization: 'Bearer ca_not-a-real-key-000000000' }, key, { name: 'refused' });
      assert.equal(unauthenticated.statusCode, 401);
      const invalid = await post(auth, key, { name: '' });
      assert.equal(invalid.statusCode, 400);
      assert.equal(invalid.json<{ error: { code: string } }>().error.code, 'validation_failed');
      const refused = await ctx().request({
        method: 'POST',
        url: '/admin/v0/members',
        headers: { ...auth, 'idempotency-key': key },
        payload: { email: 'plan@example.com', full_name: 'Plan Guard' },
      });
      assert.equal(refused.statusCode, 403);
      assert.deepEqual(await storedRows(ctx(), id), []);
      // Corrected (or upgraded), the same key runs the request for the first time.
      const corrected = await post(auth, key, { name: 'refused' });
      assert.equal(corrected.statusCode, 201);
      assert.equal(corrected.headers['x-idempotent-replayed'], undefined);
    });

    it('runs the request again once the stored response is older than one hour', async () => {
      const { id, auth } = await ctx().community();
      const key = randomUUID();
      await post(auth, key, { name: 'expiry' });
      ctx().clock.advance(59 * 60_000);
      assert.equal((await post(auth, key, { name: 'expiry' })).headers['x-idempotent-replayed'], 'true');
      ctx().clock.advance(60_000 + 1);
      const after = await post(auth, key, { name: 'expiry', note: 'a new operation under an expired key' });
      assert.equal(after.statusCode, 201);
      assert.equal(after.headers['x-idempotent-replayed'], undefined);
      assert.equal(effects(id, 'expiry'), 2);
    });

    it('lets a new request take over a claim whose request died, once its lease is over', async () => {
      const { id, auth } = await ctx().community();
      const key = randomUUID();
      const service = new IdempotencyService(ctx().database, ctx().clock);
      const fingerprint = requestFingerprint('POST', '/admin/v0/test/effects', { name: 'crashed' });
      // A claim that nothing will ever complete or release: the process that held it is gone.
      assert.equal((await service.claim(id, key, fingerprint)).kind, 'claimed');
      const during = await post(auth, key, { name: 'crashed' });
      assert.equal(during.statusCode, 409);
      ctx().clock.advance(61_000);
      const after = await post(auth, key, { name: 'crashed' });
      assert.equal(after.statusCode, 201);
      assert.equal(effects(id, 'crashed'), 1);
      assert.equal((await post(auth, key, { name: 'crashed' })).headers['x-idempotent-replayed'], 'true');
    });

    it('purges expired rows in batches through the expires_at index, and on its own after requests', async () => {
      const { id, auth } = await ctx().community();
      const service = new IdempotencyService(ctx().database, ctx().clock);
      for (let i = 0; i < 1200; i++) {
        const outcome = await service.claim(id, randomUUID(), 'fingerprint');
        assert.equal(outcome.kind, 'claimed');
        if (outcome.kind === 'claimed') await service.complete(outcome.claim, { statusCode: 200, headers: {}, body: '{}' });
      }
      ctx().clock.advance(10_000);
      await post(auth, randomUUID(), { name: 'purge' });
      ctx().clock.advance(60 * 60_000 - 20_000);
      await service.purgeExpired();
      assert.equal((await storedRows(ctx(), id)).length, 1201);
      ctx().clock.advance(20_000);
      // The 1200 completed an hour ago are gone (more than one batch); the one completed ten seconds later stays.
      assert.ok((await service.purgeExpired()) >= 1200);
      assert.equal((await storedRows(ctx(), id)).length, 1);
      // The app purges by itself, after the response to a write (where keys are made), once its interval has passed.
      ctx().clock.advance(60_000);
      await post(auth, null, { name: 'purge-trigger' });
      const deadline = Date.now() + 5000;
      while ((await storedRows(ctx(), id)).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal((await storedRows(ctx(), id)).length, 0);
    });

    it('of concurrent takeovers of one expired key, exactly one wins', async () => {
      const { id } = await ctx().community();
      const key = randomUUID();
      const service = new IdempotencyService(ctx().database, ctx().clock);
      assert.equal((await service.claim(id, key, 'f')).kind, 'claimed');
      ctx().clock.advance(61_000);
      const outcomes = await Promise.all(Array.from({ length: 10 }, () => service.claim(id, key, 'f')));
      assert.equal(outcomes.filter((o) => o.kind === 'claimed').length, 1);
      assert.equal(outcomes.filter((o) => o.kind === 'in_flight').length, 9);
    });
  },
  {
    beforeReady: (app) => {
      routes.register(app);
      // The plan guard needs a plan-restricted route; member add is one (a stand-in if its module is not there yet).
      if (!app.hasRoute({ method: 'POST', url: '/admin/v0/members' })) {
        app.post('/admin/v0/members', async (_request, reply) => reply.code(201).send({ success: true }));
      }
    },
  },
);
