// The console's routes as the OpenAPI document states them (tag, permission, plan, the words about
// api_keys:write), and the secrets they answer never written to a log, even at trace level.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { it } from 'node:test';
import { buildApp } from '../../../src/app.js';
import { createApiKey } from '../../../src/modules/api-keys/api-keys.commands.js';
import { everyPermission } from '../../../src/shared/permissions.js';
import { describeEachEngine } from '../../support/harness.js';

const consoleRoutes: [method: string, path: string, permission: string][] = [
  ['get', '/admin/v0/members', 'members:read'],
  ['get', '/admin/v0/groups', 'groups:read'],
  ['get', '/admin/v0/api_keys', 'api_keys:write'],
  ['post', '/admin/v0/api_keys', 'api_keys:write'],
  ['post', '/admin/v0/api_keys/{id}/rotate', 'api_keys:write'],
  ['delete', '/admin/v0/api_keys/{id}', 'api_keys:write'],
  ['get', '/admin/v0/awards', 'awards:read'],
  ['post', '/admin/v0/awards', 'awards:write'],
  ['get', '/admin/v0/files', 'files:read'],
];

interface Operation {
  tags: string[];
  description?: string;
  'x-permission': string;
  'x-plan': string;
}

describeEachEngine('the console routes in the OpenAPI document, and their secrets in logs', (ctx) => {
  it('each is an extension with its permission, on every plan; the key texts say api_keys:write is never implied', async () => {
    const res = await ctx().request({ method: 'GET', url: '/admin/v0/openapi.json' });
    const paths = res.json<{ paths: Record<string, Record<string, Operation>> }>().paths;
    for (const [method, path, permission] of consoleRoutes) {
      const operation = paths[path]?.[method];
      assert.ok(operation, `${method} ${path} is documented`);
      assert.ok(operation.tags.includes('extension'), `${method} ${path}: tagged extension`);
      assert.deepEqual([operation['x-permission'], operation['x-plan']], [permission, 'free'], `${method} ${path}`);
    }
    assert.match(paths['/admin/v0/api_keys']?.post?.description ?? '', /`api_keys:write` only when it is named \(`all` never implies it\)/);
    assert.match(res.body, /except api_keys:write, which a key holds only when it is named/);
  });

  it('a created or rotated secret appears in its answer only, never in a log line', async () => {
    const t = ctx();
    const community = await t.community('free');
    const admin = await createApiKey(
      { database: t.database, clock: t.clock, communityId: community.id },
      { label: 'admin', permissions: everyPermission },
    );
    let logged = '';
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logged += chunk.toString();
        done();
      },
    });
    const app = await buildApp({ config: t.config, database: t.database, clock: t.clock, logger: { level: 'trace', stream } });
    await app.ready();
    try {
      const headers = { authorization: `Bearer ${admin.key}` };
      const created = await app.inject({
        method: 'POST',
        url: '/admin/v0/api_keys',
        headers,
        payload: { label: 'x', permissions: ['feeds:read'] },
      });
      assert.equal(created.statusCode, 201, created.body);
      const { id, key } = (JSON.parse(created.body) as { data: { id: string; key: string } }).data;
      const rotated = await app.inject({ method: 'POST', url: `/admin/v0/api_keys/${id}/rotate`, headers });
      assert.equal(rotated.statusCode, 200, rotated.body);
      const newKey = (JSON.parse(rotated.body) as { data: { key: string } }).data.key;
      assert.match(logged, /api_keys/, 'the requests were logged: the check below is not vacuous');
      for (const secret of [admin.key, key, newKey]) assert.equal(logged.includes(secret), false, 'a secret appears in the logs');
    } finally {
      await app.close();
    }
  });
});
