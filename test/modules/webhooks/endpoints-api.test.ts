import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachEngine } from '../../support/harness.js';

interface EndpointRecord {
  id: string;
  url: string;
  events: string[] | null;
  disabled: boolean;
  disabled_reason: string | null;
  secret?: string;
}

describeEachEngine('webhook endpoints API', (ctx) => {
  const post = async (auth: Record<string, string>, body: unknown) =>
    ctx().request({ method: 'POST', url: '/admin/v0/webhook_endpoints', headers: auth, payload: body as Record<string, unknown> });

  it('creates an endpoint, answers its secret once, lists it without the secret, deletes it', async () => {
    const { auth } = await ctx().community();
    const created = await post(auth, {
      url: 'https://93.184.215.14/hooks',
      events: ['member.created', 'calendar_event.registration.created'],
    });
    assert.equal(created.statusCode, 201, created.body);
    const data = created.json<{ data: EndpointRecord }>().data;
    assert.match(data.secret as string, /^whsec_/);
    assert.deepEqual(data.events, ['member.created', 'calendar_event.registration.created']);
    const listed = await ctx().request({ method: 'GET', url: '/admin/v0/webhook_endpoints', headers: auth });
    assert.equal(listed.statusCode, 200);
    const records = listed.json<{ data: EndpointRecord[] }>().data;
    assert.equal(records.length, 1);
    assert.equal(records[0]?.id, data.id);
    assert.equal(records[0]?.disabled, false);
    assert.equal('secret' in (records[0] as object), false);
    assert.equal(listed.body.includes('whsec_'), false);
    const removed = await ctx().request({ method: 'DELETE', url: `/admin/v0/webhook_endpoints/${data.id}`, headers: auth });
    assert.equal(removed.statusCode, 200);
    assert.deepEqual(removed.json(), { success: true });
    const again = await ctx().request({ method: 'DELETE', url: `/admin/v0/webhook_endpoints/${data.id}`, headers: auth });
    assert.equal(again.statusCode, 404);
    assert.deepEqual((await ctx().request({ method: 'GET', url: '/admin/v0/webhook_endpoints', headers: auth })).json(), {
      success: true,
      data: [],
    });
  });

  it('defaults to every event type (events null)', async () => {
    const { auth } = await ctx().community();
    const created = await post(auth, { url: 'https://93.184.215.14/all' });
    assert.equal(created.statusCode, 201);
    assert.equal(created.json<{ data: EndpointRecord }>().data.events, null);
  });

  it("treats another community's endpoint as missing", async () => {
    const owner = await ctx().community();
    const other = await ctx().community();
    const id = (await post(owner.auth, { url: 'https://93.184.215.14/x' })).json<{ data: EndpointRecord }>().data.id;
    const refused = await ctx().request({ method: 'DELETE', url: `/admin/v0/webhook_endpoints/${id}`, headers: other.auth });
    assert.equal(refused.statusCode, 404);
    assert.deepEqual((await ctx().request({ method: 'GET', url: '/admin/v0/webhook_endpoints', headers: other.auth })).json(), {
      success: true,
      data: [],
    });
  });

  it('refuses plain http, loopback, private, link-local and unique-local targets, before connecting', async () => {
    const { auth } = await ctx().community();
    const cases: [string, RegExp][] = [
      ['http://93.184.215.14/hook', /must be an https URL/],
      ['https://127.0.0.1/hook', /127\.0\.0\.1.*loopback, private or reserved/],
      ['https://localhost:8443/hook', /loopback, private or reserved/],
      ['https://10.20.30.40/hook', /10\.20\.30\.40/],
      ['https://192.168.0.10/hook', /192\.168\.0\.10/],
      ['https://169.254.169.254/latest/meta-data', /169\.254\.169\.254/],
      ['https://[::1]/hook', /::1/],
      ['https://[fd00::5]/hook', /fd00::5/],
      ['https://[fe80::1]/hook', /fe80::1/],
      ['https://[::ffff:127.0.0.1]/hook', /loopback/],
    ];
    for (const [url, message] of cases) {
      const answer = await post(auth, { url });
      assert.equal(answer.statusCode, 400, `${url}: ${answer.body}`);
      const error = answer.json<{ error: { code: string; message: string } }>().error;
      assert.equal(error.code, 'validation_failed', url);
      assert.match(error.message, /^body\.url: /, url);
      assert.match(error.message, message, url);
    }
    assert.deepEqual((await ctx().request({ method: 'GET', url: '/admin/v0/webhook_endpoints', headers: auth })).json(), {
      success: true,
      data: [],
    });
  });

  it('refuses unknown event types and extra fields with a clear 400', async () => {
    const { auth } = await ctx().community();
    const unknown = await post(auth, { url: 'https://93.184.215.14/x', events: ['member.exploded'] });
    assert.equal(unknown.statusCode, 400);
    assert.match(unknown.body, /events/);
    const extra = await post(auth, { url: 'https://93.184.215.14/x', secret: 'whsec_mine' });
    assert.equal(extra.statusCode, 400);
  });

  it('is refused below the plan that may manage webhooks', async () => {
    const { auth } = await ctx().community('free');
    const answer = await post(auth, { url: 'https://93.184.215.14/x' });
    assert.equal(answer.statusCode, 403);
    assert.equal(answer.json<{ error: { code: string } }>().error.code, 'plan_required');
  });

  it('documents the three operations in the OpenAPI document', async () => {
    const document = (await ctx().request({ method: 'GET', url: '/admin/v0/openapi.json' })).json<{
      paths: Record<string, Record<string, unknown>>;
    }>();
    assert.deepEqual(Object.keys(document.paths['/admin/v0/webhook_endpoints'] ?? {}).sort(), ['get', 'post']);
    assert.ok(document.paths['/admin/v0/webhook_endpoints/{id}']?.delete);
  });
});

describeEachEngine(
  'webhook endpoints API with WEBHOOK_ALLOW_PRIVATE=true',
  (ctx) => {
    it('accepts a plain http loopback receiver', async () => {
      const { auth } = await ctx().community();
      const answer = await ctx().request({
        method: 'POST',
        url: '/admin/v0/webhook_endpoints',
        headers: auth,
        payload: { url: 'http://127.0.0.1:9/hook' },
      });
      assert.equal(answer.statusCode, 201, answer.body);
    });
  },
  { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } },
);

// Tests and the fuzz run give the app a resolver that never asks a DNS server (src/dependencies.ts).
const resolved: string[] = [];
describeEachEngine(
  'webhook endpoints API with a resolver of its own',
  (ctx) => {
    it('resolves target hosts with it: a name it refuses is a 400, and no other resolver is asked', async () => {
      const { auth } = await ctx().community();
      resolved.length = 0;
      const answer = await ctx().request({
        method: 'POST',
        url: '/admin/v0/webhook_endpoints',
        headers: auth,
        payload: { url: 'https://hooks.receiver.test/hook' },
      });
      assert.equal(answer.statusCode, 400, answer.body);
      assert.match(answer.body, /could not be resolved/);
      assert.deepEqual(resolved, ['hooks.receiver.test']);
    });
  },
  {
    services: {
      webhookResolver: async (hostname) => {
        resolved.push(hostname);
        throw new Error('refused in this test');
      },
    },
  },
);
