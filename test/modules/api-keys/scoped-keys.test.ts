import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createApiKey, rotateApiKey, setApiKeyPermissions } from '../../../src/modules/api-keys/api-keys.commands.js';
import { permissions } from '../../../src/shared/permissions.js';
import { durationMs } from '../../../src/shared/time.js';
import { describeEachEngine, type TestApp } from '../../support/harness.js';

interface ErrorBody {
  success: false;
  error: { code: string; message: string; hint: string };
}

const hour = 3_600_000;
const events = { method: 'GET' as const, url: '/admin/v0/calendar_events' };
const memberAdd = (email: string) => ({
  method: 'POST' as const,
  url: '/admin/v0/members',
  payload: { email, full_name: 'Scoped Key' },
});

async function keyFor(t: TestApp, communityId: string, options: Parameters<typeof createApiKey>[1] = {}, label = 'scoped') {
  const created = await createApiKey({ database: t.database, clock: t.clock, communityId }, { label, ...options });
  return { ...created, headers: { authorization: `Bearer ${created.key}` } };
}

describeEachEngine('API keys: permissions', (ctx) => {
  it('a key limited to calendar_events:read reads events and gets 403 insufficient_scope elsewhere, naming needed and held', async () => {
    const t = ctx();
    const community = await t.community('enterprise');
    const key = await keyFor(t, community.id, { permissions: new Set(['calendar_events:read', 'feeds:read']) });
    assert.equal((await t.request({ ...events, headers: key.headers })).statusCode, 200);
    const refused = await t.request({ ...memberAdd('scope@example.org'), headers: key.headers });
    assert.equal(refused.statusCode, 403, refused.body);
    const body = refused.json<ErrorBody>();
    assert.equal(body.error.code, 'insufficient_scope');
    assert.match(body.error.message, /members:write/);
    assert.match(body.error.hint, /holds calendar_events:read, feeds:read;/);
    assert.match(body.error.hint, /members:write/);
    const del = await t.request({ method: 'DELETE', url: '/admin/v0/calendar_events/abcdefghijkl', headers: key.headers });
    assert.equal(del.json<ErrorBody>().error.code, 'insufficient_scope');
    assert.match(del.json<ErrorBody>().error.message, /calendar_events:write/);
  });

  it('a key without --permissions holds every permission (the harness key reaches member add)', async () => {
    const t = ctx();
    const community = await t.community('enterprise');
    const res = await t.request({ ...memberAdd('all@example.org'), headers: community.auth });
    assert.equal(res.statusCode, 201, res.body);
  });

  it('each route needs its own permission: a key holding all but one is refused exactly where that one is needed', async () => {
    const t = ctx();
    const community = await t.community('enterprise');
    const withoutRead = await keyFor(t, community.id, { permissions: new Set(permissions.filter((p) => p !== 'members:read')) });
    const check = await t.request({
      method: 'POST',
      url: '/admin/v0/members/check',
      payload: { email: 'x@example.org' },
      headers: withoutRead.headers,
    });
    assert.equal(check.json<ErrorBody>().error.code, 'insufficient_scope');
    assert.equal((await t.request({ ...events, headers: withoutRead.headers })).statusCode, 200);
    const withoutFeeds = await keyFor(t, community.id, { permissions: new Set(permissions.filter((p) => p !== 'feeds:read')) });
    const feed = await t.request({ method: 'GET', url: '/admin/v0/feeds/home/posts', headers: withoutFeeds.headers });
    assert.equal(feed.statusCode, 403);
    assert.equal(feed.json<ErrorBody>().error.code, 'insufficient_scope');
  });

  it('the plan is checked before the permission: a free community gets plan_required whatever the key holds', async () => {
    const t = ctx();
    const community = await t.community('free');
    const key = await keyFor(t, community.id, { permissions: new Set(['calendar_events:read']) });
    const res = await t.request({ ...memberAdd('plan@example.org'), headers: key.headers });
    assert.equal(res.json<ErrorBody>().error.code, 'plan_required');
  });

  it('a permission change applies within one second (the trusted lookup) and not before', async () => {
    const t = ctx();
    const community = await t.community('enterprise');
    const key = await keyFor(t, community.id, { permissions: new Set(['calendar_events:read']) });
    assert.equal((await t.request({ ...events, headers: key.headers })).statusCode, 200);
    await setApiKeyPermissions({ database: t.database }, { keyId: key.id, permissions: new Set(['feeds:read']) });
    t.clock.advance(1001);
    const res = await t.request({ ...events, headers: key.headers });
    assert.equal(res.statusCode, 403);
    assert.match(res.json<ErrorBody>().error.hint, /holds feeds:read;/);
    await setApiKeyPermissions({ database: t.database }, { keyId: key.id, permissions: 'all' });
    t.clock.advance(1001);
    assert.equal((await t.request({ ...events, headers: key.headers })).statusCode, 200);
  });
});

describeEachEngine('API keys: expiry and rotation', (ctx) => {
  it('an expired key gets 401 api_key_expired from the instant it expires, even while its lookup is trusted', async () => {
    const t = ctx();
    const community = await t.community();
    const key = await keyFor(t, community.id, { expiresInMs: durationMs(hour) });
    assert.equal((await t.request({ ...events, headers: key.headers })).statusCode, 200);
    t.clock.advance(hour - 1);
    assert.equal((await t.request({ ...events, headers: key.headers })).statusCode, 200);
    t.clock.advance(1);
    const res = await t.request({ ...events, headers: key.headers });
    assert.equal(res.statusCode, 401);
    assert.equal(res.json<ErrorBody>().error.code, 'api_key_expired');
    // Still refused after the trusted lookup ends (the database says the same).
    t.clock.advance(2000);
    assert.equal((await t.request({ ...events, headers: key.headers })).json<ErrorBody>().error.code, 'api_key_expired');
  });

  it('rotation: new secret, same key id; the old secret works until the grace ends, then 401 api_key_expired', async () => {
    const t = ctx();
    const community = await t.community();
    const key = await keyFor(t, community.id, { permissions: new Set(['calendar_events:read']) }, 'rotating');
    const rotated = await rotateApiKey({ database: t.database, clock: t.clock }, { keyId: key.id, graceMs: durationMs(hour) });
    assert.equal(rotated.id, key.id);
    assert.notEqual(rotated.key, key.key);
    assert.equal(rotated.previous_valid_until, new Date(t.clock.now() + hour).toISOString());
    const fresh = { authorization: `Bearer ${rotated.key}` };
    t.clock.advance(1001);
    assert.equal((await t.request({ ...events, headers: key.headers })).statusCode, 200);
    assert.equal((await t.request({ ...events, headers: fresh })).statusCode, 200);
    // Same key: same permissions and the same id for introspection.
    const me = await t.request({ method: 'GET', url: '/admin/v0/api_key/me', headers: fresh });
    assert.equal(me.json<{ data: { id: string; label: string; permissions: string[] } }>().data.id, key.id);
    assert.deepEqual(me.json<{ data: { permissions: string[] } }>().data.permissions, ['calendar_events:read']);
    t.clock.advance(hour);
    const old = await t.request({ ...events, headers: key.headers });
    assert.equal(old.statusCode, 401);
    assert.equal(old.json<ErrorBody>().error.code, 'api_key_expired');
    assert.match(old.json<ErrorBody>().error.message, /rotation/);
    assert.equal((await t.request({ ...events, headers: fresh })).statusCode, 200);
  });

  it('a second rotation ends the first secret at once (only the latest replaced secret has a grace)', async () => {
    const t = ctx();
    const community = await t.community();
    const key = await keyFor(t, community.id);
    const second = await rotateApiKey({ database: t.database, clock: t.clock }, { keyId: key.id, graceMs: durationMs(hour) });
    const third = await rotateApiKey({ database: t.database, clock: t.clock }, { keyId: key.id, graceMs: durationMs(hour) });
    t.clock.advance(1001);
    assert.equal((await t.request({ ...events, headers: key.headers })).statusCode, 401);
    assert.equal((await t.request({ ...events, headers: { authorization: `Bearer ${second.key}` } })).statusCode, 200);
    assert.equal((await t.request({ ...events, headers: { authorization: `Bearer ${third.key}` } })).statusCode, 200);
  });

  it('a rotated key keeps its expiry: rotation does not extend a key', async () => {
    const t = ctx();
    const community = await t.community();
    const key = await keyFor(t, community.id, { expiresInMs: durationMs(2 * hour) });
    const rotated = await rotateApiKey({ database: t.database, clock: t.clock }, { keyId: key.id, graceMs: durationMs(hour) });
    t.clock.advance(2 * hour);
    const res = await t.request({ ...events, headers: { authorization: `Bearer ${rotated.key}` } });
    assert.equal(res.json<ErrorBody>().error.code, 'api_key_expired');
  });
});

describeEachEngine('GET /admin/v0/api_key/me', (ctx) => {
  it('answers the calling key exactly as documented, never its secret', async () => {
    const t = ctx();
    const community = await t.community('growth', 'Introspection');
    const key = await keyFor(t, community.id, { permissions: new Set(['feeds:read']), expiresInMs: durationMs(hour) }, 'reader');
    const res = await t.request({ method: 'GET', url: '/admin/v0/api_key/me', headers: key.headers });
    assert.equal(res.statusCode, 200, res.body);
    assert.ok(!res.body.includes(key.key));
    const body = res.json<{ success: boolean; data: Record<string, unknown> }>();
    assert.equal(body.success, true);
    assert.deepEqual(Object.keys(body.data).sort(), [
      'community',
      'created_at',
      'expires_at',
      'id',
      'label',
      'last_used_at',
      'permissions',
    ]);
    assert.deepEqual(body.data, {
      id: key.id,
      label: 'reader',
      community: { id: community.id, name: 'Introspection', plan: 'growth' },
      permissions: ['feeds:read'],
      created_at: new Date(t.clock.now()).toISOString(),
      expires_at: new Date(t.clock.now() + hour).toISOString(),
      last_used_at: body.data.last_used_at,
    });
  });

  it('needs no permission beyond a valid key; a key without --permissions lists every permission but api_keys:write, and expires_at null', async () => {
    const t = ctx();
    const community = await t.community();
    const none = await keyFor(t, community.id, { permissions: new Set() });
    assert.equal((await t.request({ method: 'GET', url: '/admin/v0/api_key/me', headers: none.headers })).statusCode, 200);
    const res = await t.request({ method: 'GET', url: '/admin/v0/api_key/me', headers: community.auth });
    const data = res.json<{ data: { permissions: string[]; expires_at: null } }>().data;
    assert.deepEqual(
      data.permissions,
      permissions.filter((p) => p !== 'api_keys:write'),
    );
    assert.equal(data.expires_at, null);
  });

  it('answers 401 without a key', async () => {
    assert.equal((await ctx().request({ method: 'GET', url: '/admin/v0/api_key/me' })).statusCode, 401);
  });
});
