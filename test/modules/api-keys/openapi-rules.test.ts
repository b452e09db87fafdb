import assert from 'node:assert/strict';
import { it } from 'node:test';
import { routeRules } from '../../../src/modules/plan-requirements.js';
import { describeEachEngine } from '../../support/harness.js';

interface Operation {
  description?: string;
  responses: Record<string, unknown>;
  'x-plan'?: string;
  'x-permission'?: string;
}

describeEachEngine('OpenAPI: plan and permission per operation', (ctx) => {
  it('every operation is in the route table and states its plan and permission (x-plan, x-permission, words, 403)', async () => {
    const doc = (await ctx().request({ method: 'GET', url: '/admin/v0/openapi.json' })).json<{
      paths: Record<string, Record<string, Operation>>;
    }>();
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`, op })),
    );
    for (const added of [
      'POST /admin/v0/calendar_events',
      'PATCH /admin/v0/calendar_events/:calendar_event_id',
      'GET /admin/v0/posts/:post_id',
      'GET /admin/v0/api_key/me',
    ]) {
      assert.ok(
        operations.some((o) => o.key === added),
        `${added} is documented`,
      );
    }
    for (const { key, op } of operations) {
      const rule = routeRules[key];
      assert.ok(rule, `${key} is not in routeRules (src/http/plans.ts)`);
      assert.equal(op['x-plan'], rule.plan, key);
      assert.equal(op['x-permission'], rule.permission ?? 'none', key);
      const words = rule.permission ? new RegExp(`\`${rule.permission}\``) : rule.public ? /no API key \(public\)/ : /any valid key/;
      assert.match(op.description ?? '', words, key);
      if (rule.public) assert.deepEqual((op as { security?: unknown }).security, [], `${key} is public: no security`);
      if (rule.permission) assert.ok(op.responses['403'], `${key} documents 403`);
    }
    const byKey = new Map(operations.map(({ key, op }) => [key, op]));
    assert.equal(byKey.get('POST /admin/v0/members')?.['x-plan'], 'enterprise');
    assert.equal(byKey.get('POST /admin/v0/members')?.['x-permission'], 'members:write');
    assert.equal(byKey.get('GET /admin/v0/api_key/me')?.['x-permission'], 'none');
    assert.equal(byKey.get('GET /admin/v0/calendar_events')?.['x-permission'], 'calendar_events:read');
    assert.equal(byKey.get('POST /admin/v0/calendar_events')?.['x-permission'], 'calendar_events:write');
    assert.ok(byKey.get('POST /admin/v0/calendar_events')?.responses['201'], 'POST /calendar_events documents 201');
    assert.equal(byKey.get('GET /admin/v0/posts/:post_id')?.['x-permission'], 'feeds:read');
  });
});
