import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachEngine } from '../support/harness.js';

describeEachEngine('foundation: auth, envelope, routing', (ctx) => {
  it('answers 401 with WWW-Authenticate and the envelope when the key is missing', async () => {
    const res = await ctx().request({ method: 'GET', url: '/admin/v0/calendar_events' });
    assert.equal(res.statusCode, 401);
    assert.equal(res.headers['www-authenticate'], 'Bearer');
    const body = res.json<{ success: boolean; error: { code: string; message: string; hint: string } }>();
    assert.equal(body.success, false);
    assert.equal(body.error.code, 'unauthorized');
    assert.ok(body.error.message.length > 0 && body.error.hint.length > 0);
  });
});
