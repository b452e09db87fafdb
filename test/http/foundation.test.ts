import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachEngine } from '../support/harness.js';

interface ErrorBody {
  success: boolean;
  error: { code: string; message: string; hint: string };
}

describeEachEngine('foundation: authentication', (ctx) => {
  it('answers 401 with WWW-Authenticate and the envelope when the key is missing', async () => {
    const res = await ctx().request({ method: 'GET', url: '/admin/v0/calendar_events' });
    assert.equal(res.statusCode, 401);
    assert.equal(res.headers['www-authenticate'], 'Bearer');
    const body = res.json<ErrorBody>();
    assert.equal(body.success, false);
    assert.equal(body.error.code, 'unauthorized');
    assert.ok(body.error.message.length > 0 && body.error.hint.length > 0);
  });

  it('accepts the Bearer scheme in any letter case and the bare key form', async () => {
    const { key } = await ctx().community();
    for (const authorization of [`Bearer ${key}`, `bearer ${key}`, `BEARER ${key}`, key]) {
      const res = await ctx().request({ method: 'GET', url: '/admin/v0/calendar_events', headers: { authorization } });
      assert.equal(res.statusCode, 200, `${authorization.slice(0, 8)}…: ${res.body}`);
    }
  });

  it('refuses unknown, malformed and other-scheme keys with 401', async () => {
    const { key } = await ctx().community();
    for (const authorization of [
      'Bearer ca_unknownunknownunknownunknown',
      'Bearer',
      'Basic dXNlcjpwYXNz',
      `Bearer ${key}x`,
      `Token ${key}`,
    ]) {
      const res = await ctx().request({ method: 'GET', url: '/admin/v0/calendar_events', headers: { authorization } });
      assert.equal(res.statusCode, 401, authorization);
      assert.equal(res.json<ErrorBody>().error.code, 'unauthorized');
    }
  });

  it('refuses a revoked key within a second', async () => {
    const { keyId, auth } = await ctx().community();
    const { revokeApiKey } = await import('../../src/modules/api-keys/api-keys.commands.js');
    assert.equal((await ctx().request({ method: 'GET', url: '/admin/v0/calendar_events', headers: auth })).statusCode, 200);
    await revokeApiKey({ database: ctx().database, clock: ctx().clock }, keyId);
    ctx().clock.advance(1001);
    const res = await ctx().request({ method: 'GET', url: '/admin/v0/calendar_events', headers: auth });
    assert.equal(res.statusCode, 401);
  });

  it('never echoes the key in an error', async () => {
    const secret = 'ca_thisisnotarealkeybutlookslikeone';
    const res = await ctx().request({ method: 'GET', url: '/admin/v0/calendar_events', headers: { authorization: `Bearer ${secret}` } });
    assert.equal(res.statusCode, 401);
    assert.ok(!res.body.includes(secret));
  });
});

describeEachEngine('foundation: plans', (ctx) => {
  it('answers 403 plan_required naming the plan for an enterprise route on a lower plan', async () => {
    const { auth } = await ctx().community('momentum');
    const res = await ctx().request({
      method: 'POST',
      url: '/admin/v0/members',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: { email: 'a@example.com', full_name: 'A B' },
    });
    assert.equal(res.statusCode, 403);
    const body = res.json<ErrorBody>();
    assert.equal(body.error.code, 'plan_required');
    assert.match(body.error.hint, /Enterprise/);
  });

  it('lets every plan call the routes that are not restricted', async () => {
    const { auth } = await ctx().community('free');
    const res = await ctx().request({ method: 'GET', url: '/admin/v0/calendar_events', headers: auth });
    assert.equal(res.statusCode, 200);
  });
});

describeEachEngine('foundation: errors and routing', (ctx) => {
  it('answers a JSON 404 for an unknown route', async () => {
    const { auth } = await ctx().community();
    const res = await ctx().request({ method: 'GET', url: '/admin/v0/nothing-here', headers: auth });
    assert.equal(res.statusCode, 404);
    assert.match(String(res.headers['content-type']), /application\/json/);
    assert.equal(res.json<ErrorBody>().success, false);
  });

  it('answers 405 with Allow for a known path with a wrong method', async () => {
    const { auth } = await ctx().community();
    const res = await ctx().request({ method: 'PUT', url: '/admin/v0/calendar_events', headers: auth });
    assert.equal(res.statusCode, 405);
    assert.match(String(res.headers.allow), /GET/);
    assert.equal(res.json<ErrorBody>().error.code, 'method_not_allowed');
  });

  it('answers 400 invalid_json for a malformed JSON body', async () => {
    const { auth } = await ctx().community();
    const res = await ctx().request({
      method: 'POST',
      url: '/admin/v0/members/check',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: '{"email": ',
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json<ErrorBody>().error.code, 'invalid_json');
  });

  it('refuses prototype-poisoning JSON with 400', async () => {
    const { auth } = await ctx().community();
    const res = await ctx().request({
      method: 'POST',
      url: '/admin/v0/members/check',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: '{"email":"a@example.com","__proto__":{"polluted":true}}',
    });
    assert.equal(res.statusCode, 400);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('answers 400 validation_failed naming the field and the rule', async () => {
    const { auth } = await ctx().community();
    const res = await ctx().request({ method: 'GET', url: '/admin/v0/calendar_events?per_page=51', headers: auth });
    assert.equal(res.statusCode, 400);
    const body = res.json<ErrorBody>();
    assert.equal(body.error.code, 'validation_failed');
    assert.match(body.error.message, /per_page/);
    assert.match(body.error.message, /50/);
  });

  it('answers 415 for a wrong Content-Type where JSON is required', async () => {
    const { auth } = await ctx().community();
    const res = await ctx().request({
      method: 'POST',
      url: '/admin/v0/groups/g1/members',
      headers: { ...auth, 'content-type': 'text/plain' },
      payload: 'hello',
    });
    assert.equal(res.statusCode, 415);
    assert.equal(res.json<ErrorBody>().success, false);
  });

  it('answers 413 in the envelope for a body over 1 MiB', async () => {
    const { auth } = await ctx().community();
    const res = await ctx().request({
      method: 'POST',
      url: '/admin/v0/members/check',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ email: 'x'.repeat(1024 * 1024 + 10) }),
    });
    assert.equal(res.statusCode, 413);
    assert.equal(res.json<ErrorBody>().error.code, 'payload_too_large');
  });

  it('echoes a sane X-Request-Id and makes one up otherwise', async () => {
    const echoed = await ctx().request({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'abc-123' } });
    assert.equal(echoed.headers['x-request-id'], 'abc-123');
    const fresh = await ctx().request({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'bad id with spaces' } });
    assert.match(String(fresh.headers['x-request-id']), /^[0-9a-f-]{36}$/);
    const error = await ctx().request({ method: 'GET', url: '/admin/v0/calendar_events' });
    assert.ok(error.headers['x-request-id']);
  });

  it('marks responses nosniff and not cacheable', async () => {
    const res = await ctx().request({ method: 'GET', url: '/admin/v0/calendar_events' });
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.headers['cache-control'], 'no-store');
  });
});

describeEachEngine('foundation: health, OpenAPI and docs', (ctx) => {
  it('answers /healthz and /readyz without a key', async () => {
    assert.equal((await ctx().request({ method: 'GET', url: '/healthz' })).statusCode, 200);
    const ready = await ctx().request({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 200);
    assert.equal(ready.json<{ data: { status: string } }>().data.status, 'ready');
  });

  it('serves an OpenAPI 3.1 document without a key, version 0.0.0, bearer security, every operation with error responses', async () => {
    const res = await ctx().request({ method: 'GET', url: '/admin/v0/openapi.json' });
    assert.equal(res.statusCode, 200);
    const doc = res.json<{
      openapi: string;
      info: { version: string };
      components: { securitySchemes: Record<string, { scheme: string }> };
      paths: Record<string, Record<string, { responses: Record<string, unknown>; operationId?: string }>>;
    }>();
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.version, '0.0.0');
    assert.equal(doc.components.securitySchemes.bearerAuth?.scheme, 'bearer');
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ path, method, op })),
    );
    const expected = [
      'get /admin/v0/calendar_events',
      'get /admin/v0/calendar_events/{calendar_event_id}',
      'delete /admin/v0/calendar_events/{calendar_event_id}',
      'patch /admin/v0/calendar_events/{calendar_event_id}/attendees',
      'post /admin/v0/groups/{group_id}/members',
      'post /admin/v0/members',
      'post /admin/v0/members/check',
      'post /admin/v0/members/{member_id}/deactivate',
      'get /admin/v0/feeds/{feed_id}',
      'get /admin/v0/feeds/{feed_id}/posts',
    ];
    const present = new Set(operations.map(({ path, method }) => `${method} ${path}`));
    for (const operation of expected) assert.ok(present.has(operation), `missing ${operation}`);
    for (const { path, method, op } of operations) {
      assert.ok(op.responses['401'], `${method} ${path} documents 401`);
      assert.ok(
        Object.keys(op.responses).some((status) => status.startsWith('2')),
        `${method} ${path} documents a success`,
      );
    }
  });

  it('serves the API reference page at /docs without a key', async () => {
    const res = await ctx().request({ method: 'GET', url: '/docs/' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /text\/html/);
  });
});

describeEachEngine('foundation: bodies', (ctx) => {
  it('treats an empty JSON body as no body on a bodiless operation', async () => {
    const { auth } = await ctx().community();
    const res = await ctx().request({
      method: 'POST',
      url: '/admin/v0/members/00000000-0000-4000-8000-000000000000/deactivate',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: '',
    });
    assert.equal(res.statusCode, 404, res.body);
    assert.equal(res.json<ErrorBody>().error.code, 'not_found');
  });

  it('still refuses an empty body where a body is required', async () => {
    const { auth } = await ctx().community();
    const res = await ctx().request({
      method: 'POST',
      url: '/admin/v0/members/check',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: '',
    });
    assert.equal(res.statusCode, 400);
  });
});
