// Response headers fit for an API (no sniffing, no caching of authenticated answers), CORS closed by
// default and exactly as configured, and the body size limit, through the built app.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createApiKey } from '../../src/modules/api-keys/api-keys.commands.js';
import { createCommunity } from '../../src/modules/communities/communities.commands.js';
import { createTestDatabase, describeEachEngine, type TestApp, TestClock, type TestDatabase, testConfig } from '../support/harness.js';
import { seedWorld, type World } from './support/world.js';

const corsHeaders = (res: LightMyRequestResponse) => Object.keys(res.headers).filter((name) => name.startsWith('access-control-'));

function assertApiHeaders(res: LightMyRequestResponse, label: string): void {
  assert.equal(res.headers['x-content-type-options'], 'nosniff', label);
  assert.equal(res.headers['cache-control'], 'no-store', label);
  assert.match(String(res.headers['content-type']), /^application\/json/, label);
  assert.ok(res.headers['x-request-id'], label);
}

describeEachEngine('security headers and CORS closed by default', (ctx) => {
  let t: TestApp;
  let world: World;
  before(async () => {
    t = ctx();
    world = await seedWorld(t, 'a');
  });

  it('every answer, success or error, carries nosniff and no-store', async () => {
    const json = { 'content-type': 'application/json' };
    const cases = [
      { label: '200', method: 'GET' as const, url: '/admin/v0/calendar_events', headers: world.auth },
      {
        label: '200 post',
        method: 'POST' as const,
        url: '/admin/v0/members/check',
        headers: { ...world.auth, ...json },
        payload: '{"email":"a@b.org"}',
      },
      { label: '401', method: 'GET' as const, url: '/admin/v0/calendar_events' },
      { label: '400', method: 'GET' as const, url: '/admin/v0/calendar_events?per_page=0', headers: world.auth },
      { label: '404', method: 'GET' as const, url: `/admin/v0/feeds/${world.profileIds[0]}`, headers: world.auth },
      { label: 'unknown route', method: 'GET' as const, url: '/nope', headers: world.auth },
      { label: '405', method: 'PUT' as const, url: '/admin/v0/calendar_events', headers: world.auth },
      {
        label: '415',
        method: 'POST' as const,
        url: '/admin/v0/members/check',
        headers: { ...world.auth, 'content-type': 'text/xml' },
        payload: '<a/>',
      },
      { label: 'openapi', method: 'GET' as const, url: '/admin/v0/openapi.json' },
    ];
    for (const { label, ...request } of cases) assertApiHeaders(await t.app.inject(request), label);
  });

  it('a body over 1 MiB is a 413 in the envelope', async () => {
    const payload = JSON.stringify({ email: `${'x'.repeat(1024 * 1024)}@example.org` });
    const res = await t.app.inject({
      method: 'POST',
      url: '/admin/v0/members/check',
      headers: { ...world.auth, 'content-type': 'application/json' },
      payload,
    });
    assert.equal(res.statusCode, 413);
    assertApiHeaders(res, '413');
    assert.equal(res.json<{ error: { code: string } }>().error.code, 'payload_too_large');
  });

  it('without CORS_ORIGINS no answer has an Access-Control-* header and a preflight is a JSON 405/404', async () => {
    const origin = { origin: 'https://evil.example' };
    const get = await t.app.inject({ method: 'GET', url: '/admin/v0/calendar_events', headers: { ...world.auth, ...origin } });
    assert.equal(get.statusCode, 200);
    assert.deepEqual(corsHeaders(get), []);
    for (const url of ['/admin/v0/calendar_events', '/admin/v0/members', '/admin/v0/nothing-here']) {
      const preflight = await t.app.inject({
        method: 'OPTIONS',
        url,
        headers: { ...origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
      });
      assert.ok([404, 405].includes(preflight.statusCode), `${url}: ${preflight.statusCode}`);
      assert.equal(preflight.json<{ success: boolean }>().success, false);
      assert.deepEqual(corsHeaders(preflight), []);
    }
  });
});

describe('CORS with CORS_ORIGINS set', () => {
  let testDb: TestDatabase;
  let app: FastifyInstance;
  let auth: { authorization: string };
  const allowedOrigin = 'https://admin.example.com';

  before(async () => {
    testDb = await createTestDatabase('sqlite');
    const clock = new TestClock();
    const config = testConfig({ CORS_ORIGINS: `${allowedOrigin}, http://localhost:5173` });
    app = await buildApp({ config, database: testDb.database, clock, logger: false });
    await app.ready();
    const community = await createCommunity({ database: testDb.database, clock }, { name: 'Cors', plan: 'enterprise' });
    auth = { authorization: `Bearer ${(await createApiKey({ database: testDb.database, clock, communityId: community.id }, {})).key}` };
  });
  after(async () => {
    await app?.close();
    await testDb?.drop();
  });

  it('allows exactly the listed origins and exposes the headers clients need', async () => {
    const res = await app.inject({ method: 'GET', url: '/admin/v0/calendar_events', headers: { ...auth, origin: allowedOrigin } });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['access-control-allow-origin'], allowedOrigin);
    assert.match(String(res.headers.vary), /Origin/);
    const exposed = String(res.headers['access-control-expose-headers']).toLowerCase();
    for (const name of [
      'x-request-id',
      'ratelimit-limit',
      'ratelimit-remaining',
      'ratelimit-reset',
      'retry-after',
      'x-idempotent-replayed',
    ]) {
      assert.ok(exposed.includes(name), name);
    }
    assert.equal(res.headers['access-control-allow-credentials'], undefined);

    for (const origin of ['https://evil.example', 'https://admin.example.com.evil.example', 'http://admin.example.com', 'null']) {
      const other = await app.inject({ method: 'GET', url: '/admin/v0/calendar_events', headers: { ...auth, origin } });
      assert.equal(other.headers['access-control-allow-origin'], undefined, origin);
      assert.match(String(other.headers.vary), /Origin/);
    }
  });

  it('answers a preflight of a listed origin 204 without a key, and refuses others as if CORS were closed', async () => {
    const headers = {
      'access-control-request-method': 'PATCH',
      'access-control-request-headers': 'authorization,content-type,idempotency-key',
    };
    const preflight = await app.inject({
      method: 'OPTIONS',
      url: '/admin/v0/calendar_events/abcdefghijkl/attendees',
      headers: { ...headers, origin: allowedOrigin },
    });
    assert.equal(preflight.statusCode, 204);
    assert.equal(preflight.headers['access-control-allow-origin'], allowedOrigin);
    for (const method of ['GET', 'POST', 'PATCH', 'DELETE'])
      assert.ok(String(preflight.headers['access-control-allow-methods']).includes(method));
    const allowHeaders = String(preflight.headers['access-control-allow-headers']).toLowerCase();
    for (const name of ['authorization', 'content-type', 'idempotency-key']) assert.ok(allowHeaders.includes(name), name);
    assert.ok(Number(preflight.headers['access-control-max-age']) > 0);

    const refused = await app.inject({
      method: 'OPTIONS',
      url: '/admin/v0/calendar_events',
      headers: { ...headers, origin: 'https://evil.example' },
    });
    assert.equal(refused.statusCode, 405);
    assert.equal(refused.headers['access-control-allow-origin'], undefined);
  });

  it('refuses a CORS_ORIGINS that is not a list of origins, naming the variable', () => {
    for (const value of ['*', 'admin.example.com', 'https://admin.example.com/path', 'ftp://files.example.com', 'https://*.example.com']) {
      assert.throws(
        () => loadConfig({ CORS_ORIGINS: value }),
        (error: unknown) => error instanceof ConfigError && /CORS_ORIGINS/.test(error.message),
        value,
      );
    }
    assert.deepEqual(loadConfig({ CORS_ORIGINS: 'https://A.example.com:443/, http://localhost:5173' }).corsOrigins, [
      'https://a.example.com',
      'http://localhost:5173',
    ]);
  });
});
