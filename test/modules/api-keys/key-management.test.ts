import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createApiKey } from '../../../src/modules/api-keys/api-keys.commands.js';
import { everyPermission, type KeyPermissions, permissions } from '../../../src/shared/permissions.js';
import { describeEachEngine, type TestApp } from '../../support/harness.js';

interface ErrorBody {
  success: false;
  error: { code: string; message: string; hint: string };
}
interface KeyRecord {
  id: string;
  label: string;
  permissions: string[];
  all_permissions: boolean;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
}
interface Created {
  id: string;
  key: string;
  label: string;
  permissions: string[];
  all_permissions: boolean;
  expires_at: string | null;
}

const hour = 3_600_000;
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

async function keyFor(t: TestApp, communityId: string, held: KeyPermissions | undefined, label = 'k') {
  const created = await createApiKey({ database: t.database, clock: t.clock, communityId }, { label, permissions: held });
  return { ...created, headers: bearer(created.key) };
}

/** A community and a key that manages keys (every permission, api_keys:write named besides `all`). */
async function manager(t: TestApp) {
  const community = await t.community('free');
  return { community, admin: await keyFor(t, community.id, everyPermission, 'admin') };
}

describeEachEngine('API keys: management over the API (extension)', (ctx) => {
  const me = async (t: TestApp, key: string) => t.request({ method: 'GET', url: '/admin/v0/api_key/me', headers: bearer(key) });

  it('creates a key (201, its secret once), which works over HTTP with exactly the permissions named', async () => {
    const t = ctx();
    t.clock.set(Date.now());
    const { admin } = await manager(t);
    const res = await t.request({
      method: 'POST',
      url: '/admin/v0/api_keys',
      headers: admin.headers,
      payload: { label: 'reporting', permissions: ['feeds:read', 'calendar_events:read'], expires_in: '90d' },
    });
    assert.equal(res.statusCode, 201, res.body);
    const created = res.json<{ data: Created }>().data;
    assert.match(created.key, /^ca_/);
    assert.deepEqual(
      { ...created, id: undefined, key: undefined },
      {
        id: undefined,
        key: undefined,
        label: 'reporting',
        permissions: ['calendar_events:read', 'feeds:read'],
        all_permissions: false,
        expires_at: new Date(t.clock.now() + 90 * 24 * hour).toISOString(),
      },
    );
    const described = await me(t, created.key);
    assert.equal(described.statusCode, 200);
    assert.deepEqual(described.json<{ data: { permissions: string[] } }>().data.permissions, ['calendar_events:read', 'feeds:read']);
    const refused = await t.request({ method: 'GET', url: '/admin/v0/members', headers: bearer(created.key) });
    assert.equal(refused.statusCode, 403);
    // The list shows it, never a secret.
    const list = await t.request({ method: 'GET', url: '/admin/v0/api_keys?per_page=50', headers: admin.headers });
    assert.equal(list.statusCode, 200, list.body);
    assert.doesNotMatch(list.body, /ca_[A-Za-z0-9_-]{20,}/);
    const listed = list.json<{ data: { records: KeyRecord[] } }>().data.records.find((r) => r.id === created.id);
    assert.deepEqual(listed, {
      id: created.id,
      label: 'reporting',
      kind: 'key',
      permissions: ['calendar_events:read', 'feeds:read'],
      all_permissions: false,
      created_at: new Date(t.clock.now()).toISOString(),
      expires_at: created.expires_at,
      last_used_at: new Date(t.clock.now()).toISOString(),
    });
  });

  it('`all` never implies api_keys:write: an `all` key is refused key management; ["all", "api_keys:write"] holds both', async () => {
    const t = ctx();
    const { community, admin } = await manager(t);
    // The harness key is made without --permissions (stored `all`), as keys of earlier versions are.
    const old = await t.request({ method: 'GET', url: '/admin/v0/api_keys', headers: community.auth });
    assert.equal(old.statusCode, 403);
    assert.equal(old.json<ErrorBody>().error.code, 'insufficient_scope');
    assert.match(old.json<ErrorBody>().error.message, /api_keys:write/);
    // ...while it keeps every other permission, including the new reads.
    assert.equal((await t.request({ method: 'GET', url: '/admin/v0/groups', headers: community.auth })).statusCode, 200);
    const all = await t.request({
      method: 'POST',
      url: '/admin/v0/api_keys',
      headers: admin.headers,
      payload: { label: 'all', permissions: ['all'] },
    });
    assert.equal(all.statusCode, 201, all.body);
    const allKey = all.json<{ data: Created }>().data;
    assert.equal(allKey.all_permissions, true);
    assert.deepEqual(
      allKey.permissions,
      permissions.filter((p) => p !== 'api_keys:write'),
    );
    assert.equal((await t.request({ method: 'GET', url: '/admin/v0/api_keys', headers: bearer(allKey.key) })).statusCode, 403);
    const both = await t.request({
      method: 'POST',
      url: '/admin/v0/api_keys',
      headers: admin.headers,
      payload: { label: 'console', permissions: ['all', 'api_keys:write'] },
    });
    assert.equal(both.statusCode, 201, both.body);
    const bothKey = both.json<{ data: Created }>().data;
    assert.deepEqual(bothKey.permissions, [...permissions]);
    assert.equal((await t.request({ method: 'GET', url: '/admin/v0/api_keys', headers: bearer(bothKey.key) })).statusCode, 200);
  });

  it('a key can never create a key holding a permission it does not hold itself, nor `all` from a list', async () => {
    const t = ctx();
    const { community } = await manager(t);
    const limited = await keyFor(t, community.id, new Set(['api_keys:write', 'feeds:read']));
    const create = (held: string[]) =>
      t.request({ method: 'POST', url: '/admin/v0/api_keys', headers: limited.headers, payload: { label: 'x', permissions: held } });
    const wider = await create(['feeds:read', 'members:write']);
    assert.equal(wider.statusCode, 403, wider.body);
    assert.equal(wider.json<ErrorBody>().error.code, 'insufficient_scope');
    assert.match(wider.json<ErrorBody>().error.message, /members:write/);
    const all = await create(['all']);
    assert.equal(all.statusCode, 403);
    assert.match(all.json<ErrorBody>().error.message, /`all`/);
    // Nothing was created by the refusals.
    const listed = await t.request({ method: 'GET', url: '/admin/v0/api_keys?per_page=50', headers: limited.headers });
    assert.equal(listed.json<{ data: { total_records: number } }>().data.total_records, 3);
    // Within what it holds, it may.
    assert.equal((await create(['feeds:read'])).statusCode, 201);
    assert.equal((await create(['feeds:read', 'api_keys:write'])).statusCode, 201);
  });

  it('a key can never rotate or revoke a key holding a permission it does not hold itself', async () => {
    const t = ctx();
    const { community, admin } = await manager(t);
    const limited = await keyFor(t, community.id, new Set(['api_keys:write', 'feeds:read']));
    const wider = await keyFor(t, community.id, new Set(['feeds:read', 'members:read']), 'wider');
    const rotate = await t.request({ method: 'POST', url: `/admin/v0/api_keys/${wider.id}/rotate`, headers: limited.headers });
    assert.equal(rotate.statusCode, 403, rotate.body);
    assert.match(rotate.json<ErrorBody>().error.message, /members:read/);
    const revoke = await t.request({ method: 'DELETE', url: `/admin/v0/api_keys/${wider.id}`, headers: limited.headers });
    assert.equal(revoke.statusCode, 403);
    // The key still works: nothing was changed.
    assert.equal((await me(t, wider.key)).statusCode, 200);
    // `all` (the harness key) is out of a listed key's reach too.
    assert.equal(
      (await t.request({ method: 'DELETE', url: `/admin/v0/api_keys/${community.keyId}`, headers: limited.headers })).statusCode,
      403,
    );
    // A key holding all of it may.
    assert.equal((await t.request({ method: 'DELETE', url: `/admin/v0/api_keys/${wider.id}`, headers: admin.headers })).statusCode, 200);
  });

  it('rotates: a new secret answered once, the old one valid for the grace (24h by default, 0 ends it at once)', async () => {
    const t = ctx();
    t.clock.set(Date.now());
    const { community, admin } = await manager(t);
    const target = await keyFor(t, community.id, new Set(['feeds:read']));
    const res = await t.request({ method: 'POST', url: `/admin/v0/api_keys/${target.id}/rotate`, headers: admin.headers });
    assert.equal(res.statusCode, 200, res.body);
    const rotated = res.json<{ data: { id: string; key: string; previous_valid_until: string } }>().data;
    assert.equal(rotated.id, target.id);
    assert.notEqual(rotated.key, target.key);
    assert.equal(rotated.previous_valid_until, new Date(t.clock.now() + 24 * hour).toISOString());
    assert.equal((await me(t, rotated.key)).statusCode, 200);
    assert.equal((await me(t, target.key)).statusCode, 200);
    const again = await t.request({
      method: 'POST',
      url: `/admin/v0/api_keys/${target.id}/rotate?grace=0`,
      headers: admin.headers,
    });
    assert.equal(again.statusCode, 200, again.body);
    t.clock.advance(1001);
    assert.equal((await me(t, rotated.key)).statusCode, 401);
    assert.equal((await me(t, again.json<{ data: { key: string } }>().data.key)).statusCode, 200);
    const bad = await t.request({
      method: 'POST',
      url: `/admin/v0/api_keys/${target.id}/rotate?grace=soon`,
      headers: admin.headers,
    });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.json<ErrorBody>().error.message, /grace/);
  });

  it('revokes: the key is refused at once, leaves the list, and a second revoke is 404; a key may revoke itself (sign out)', async () => {
    const t = ctx();
    const { community, admin } = await manager(t);
    const target = await keyFor(t, community.id, new Set(['feeds:read']));
    assert.equal((await me(t, target.key)).statusCode, 200);
    const res = await t.request({ method: 'DELETE', url: `/admin/v0/api_keys/${target.id}`, headers: admin.headers });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json<{ data: { id: string } }>().data.id, target.id);
    assert.equal((await me(t, target.key)).statusCode, 401);
    const listed = await t.request({ method: 'GET', url: '/admin/v0/api_keys?per_page=50', headers: admin.headers });
    assert.equal(
      listed.json<{ data: { records: KeyRecord[] } }>().data.records.some((r) => r.id === target.id),
      false,
    );
    assert.equal((await t.request({ method: 'DELETE', url: `/admin/v0/api_keys/${target.id}`, headers: admin.headers })).statusCode, 404);
    // Signing out: the key revokes itself, and its very next request is refused.
    assert.equal((await me(t, admin.key)).statusCode, 200);
    const self = await t.request({ method: 'DELETE', url: `/admin/v0/api_keys/${admin.id}`, headers: admin.headers });
    assert.equal(self.statusCode, 200, self.body);
    assert.equal((await me(t, admin.key)).statusCode, 401);
  });

  it('keys of another community are 404 to rotate and revoke, and absent from the list; an id that is no UUID is 404', async () => {
    const t = ctx();
    const { admin } = await manager(t);
    const other = await manager(t);
    for (const request of [
      { method: 'POST' as const, url: `/admin/v0/api_keys/${other.admin.id}/rotate` },
      { method: 'DELETE' as const, url: `/admin/v0/api_keys/${other.admin.id}` },
      { method: 'DELETE' as const, url: '/admin/v0/api_keys/not-a-key' },
    ]) {
      const res = await t.request({ ...request, headers: admin.headers });
      assert.equal(res.statusCode, 404, `${request.method} ${request.url}: ${res.body}`);
      assert.equal(res.json<ErrorBody>().error.code, 'not_found');
    }
    assert.equal((await me(t, other.admin.key)).statusCode, 200);
    const listed = await t.request({ method: 'GET', url: '/admin/v0/api_keys?per_page=50', headers: admin.headers });
    const ids = listed.json<{ data: { records: KeyRecord[] } }>().data.records.map((r) => r.id);
    assert.equal(ids.includes(other.admin.id), false);
    assert.equal(ids.includes(admin.id), true);
  });

  it('lists keys oldest first, paged with exact totals', async () => {
    const t = ctx();
    const { community, admin } = await manager(t);
    for (let i = 0; i < 3; i++) {
      t.clock.advance(1000);
      await keyFor(t, community.id, new Set(['feeds:read']), `k${i}`);
    }
    const page = await t.request({ method: 'GET', url: '/admin/v0/api_keys?per_page=2&page=1', headers: admin.headers });
    const data = page.json<{ data: { total_records: number; total_pages: number; has_next: boolean; records: KeyRecord[] } }>().data;
    assert.deepEqual([data.total_records, data.total_pages, data.has_next, data.records.map((r) => r.label)], [5, 3, true, ['k0', 'k1']]);
  });

  it('refuses bad bodies with 400 naming the field', async () => {
    const t = ctx();
    const { admin } = await manager(t);
    const cases: [payload: unknown, field: string][] = [
      [{ label: 'x', permissions: ['feeds:write'] }, 'permissions'],
      [{ label: 'x', permissions: [] }, 'permissions'],
      [{ permissions: ['feeds:read'] }, 'label'],
      [{ label: 'x'.repeat(201), permissions: ['feeds:read'] }, 'label'],
      [{ label: 'x', permissions: ['feeds:read'], expires_in: '90 days' }, 'expires_in'],
      [{ label: 'x', permissions: ['feeds:read'], expires_in: '0d' }, 'expires_in'],
      [{ label: 'x', permissions: ['feeds:read'], expires_in: '9999999999d' }, 'expires_in'],
      [{ label: 'x', permissions: ['feeds:read'], secret: 'mine' }, 'secret'],
    ];
    for (const [payload, field] of cases) {
      const res = await t.request({ method: 'POST', url: '/admin/v0/api_keys', headers: admin.headers, payload: payload as object });
      assert.equal(res.statusCode, 400, `${JSON.stringify(payload)}: ${res.body}`);
      assert.equal(res.json<ErrorBody>().error.code, 'validation_failed');
      assert.match(res.json<ErrorBody>().error.message, new RegExp(field), JSON.stringify(payload));
    }
  });

  it('keeps no Idempotency-Key answer of a create: the secret is never stored, a repeat makes another key', async () => {
    const t = ctx();
    const { admin } = await manager(t);
    const request = {
      method: 'POST' as const,
      url: '/admin/v0/api_keys',
      headers: { ...admin.headers, 'idempotency-key': '6f1c1f5e-8a52-4a39-9b8e-2d7f0f0c1a11' },
      payload: { label: 'twice', permissions: ['feeds:read'] },
    };
    const first = await t.request(request);
    const second = await t.request(request);
    assert.equal(first.statusCode, 201);
    assert.equal(second.statusCode, 201);
    assert.notEqual(first.json<{ data: Created }>().data.id, second.json<{ data: Created }>().data.id);
  });
});
