// What the fuzzer found, pinned as plain regression tests (each was a 500 or an answer outside the
// envelope or the document before its fix).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { describeEachEngine, type TestApp } from '../support/harness.js';
import { fetchDocument } from './support/openapi.js';
import { seedWorld, type World } from './support/world.js';

function assertEnvelopeError(res: LightMyRequestResponse, status: number, code: string): void {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  assert.equal(res.headers['x-content-type-options'], 'nosniff');
  assert.equal(res.headers['cache-control'], 'no-store');
  assert.ok(res.headers['x-request-id']);
  const body = JSON.parse(res.body) as { success: boolean; error: { code: string } };
  assert.equal(body.success, false);
  assert.equal(body.error.code, code);
}

describeEachEngine('fuzz findings', (ctx) => {
  let t: TestApp;
  let world: World;
  const json = { 'content-type': 'application/json' };

  before(async () => {
    t = ctx();
    world = await seedWorld(t, 'a');
  });

  it('U+0000 in a path, query or body value is a 400 naming the field (PostgreSQL text cannot hold it: was a 500)', async () => {
    const cases = [
      { method: 'DELETE' as const, url: '/admin/v0/calendar_events/%00', field: 'path.calendar_event_id' },
      { method: 'POST' as const, url: '/admin/v0/members/a%00b/deactivate', field: 'path.member_id' },
      { method: 'GET' as const, url: '/admin/v0/calendar_events?tag_ids=x%00', field: 'query.tag_ids' },
      {
        method: 'POST' as const,
        url: `/admin/v0/groups/${world.groupIds[0]}/members`,
        payload: JSON.stringify({ user: { chat_user_id: 'U\u0000' } }),
        field: 'body.user.chat_user_id',
      },
      {
        method: 'POST' as const,
        url: '/admin/v0/members',
        payload: JSON.stringify({ email: 'nul@example.org', full_name: 'A\u0000B' }),
        field: 'body.full_name',
      },
    ];
    for (const { field, ...request } of cases) {
      const res = await t.app.inject({ ...request, headers: { ...world.auth, ...json } });
      assertEnvelopeError(res, 400, 'validation_failed');
      assert.match(res.body, new RegExp(field.replace(/[.[\]]/g, '\\$&')));
    }
  });

  it('a body nested 100,000 levels deep is a 400 (the idempotency fingerprint overflowed the stack: was a 500)', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const res = await t.app.inject({
      method: 'DELETE',
      url: `/admin/v0/calendar_events/${world.eventIds[0]}`,
      headers: { ...world.auth, ...json, 'idempotency-key': randomUUID() },
      payload: deep,
    });
    assertEnvelopeError(res, 400, 'validation_failed');
    const shallow = await t.app.inject({
      method: 'POST',
      url: '/admin/v0/members/check',
      headers: { ...world.auth, ...json },
      payload: `{"email":${'['.repeat(60)}${']'.repeat(60)}}`,
    });
    assertEnvelopeError(shallow, 400, 'validation_failed');
  });

  it("a URL that is not valid percent-encoding is a 400 in the envelope with the standard headers (was Fastify's own shape)", async () => {
    for (const url of ['/admin/v0/feeds/%', '/admin/v0/calendar_events/%zz/attendees', '/admin/v0/members/%E0%A4%A/deactivate']) {
      assertEnvelopeError(await t.app.inject({ method: 'GET', url, headers: world.auth }), 400, 'validation_failed');
    }
  });

  it('a path parameter over 512 characters is a 400 in the envelope (was a bare 414)', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/admin/v0/calendar_events/${'x'.repeat(5000)}`, headers: world.auth });
    assertEnvelopeError(res, 400, 'validation_failed');
  });

  it('routes whose method can carry a body document 413 and 415, which they answer to an unparsable body', async () => {
    const res = await t.app.inject({
      method: 'DELETE',
      url: `/admin/v0/calendar_events/${world.eventIds[1]}`,
      headers: { ...world.auth, 'content-type': 'application/xml' },
      payload: '<a/>',
    });
    assertEnvelopeError(res, 415, 'unsupported_media_type');
    const document = await fetchDocument(t);
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (method === 'get') continue;
        const statuses = Object.keys((operation as { responses: Record<string, unknown> }).responses);
        assert.ok(statuses.includes('413') && statuses.includes('415'), `${method} ${path}: ${statuses.join(',')}`);
      }
    }
  });
});
