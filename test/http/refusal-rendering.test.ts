import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Refused, refuse } from '../../src/shared/failures.js';
import { startTestApp, type TestApp } from '../support/harness.js';

/**
 * A command's refusal is rendered by the error handler, once for every route: a route lets a
 * `Refused` through and the client gets the 400 envelope naming the body's field, never a 500.
 */
describe('a Refused thrown by any route is answered 400 validation_failed by the error handler', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp('sqlite', {
      beforeReady: (app) => {
        app.post('/admin/v0/test/refuses', { config: { bodyTypes: ['json'] } }, async () => {
          throw refuse(['hosts', 1, 'id'], 'unknown_reference', 'no member has this id');
        });
        app.post(
          '/admin/v0/test/refuses-renamed',
          { config: { bodyTypes: ['json'], refusalPath: (path) => ['body', 'renamed', ...path] } },
          async () => {
            throw new Refused([
              { path: ['title'], rule: 'too_long', message: 'must be at most 10 characters' },
              { path: ['other'], rule: 'required', message: 'is required' },
            ]);
          },
        );
        app.post('/admin/v0/test/refuses-whole', { config: { bodyTypes: ['json'] } }, async () => {
          throw new Refused([]);
        });
      },
    });
  });
  after(() => t.app.close().then(() => t.testDb.drop()));

  it('names body.<path> of the first failure with its message', async () => {
    const { auth } = await t.community();
    const response = await t.request({ method: 'POST', url: '/admin/v0/test/refuses', headers: auth, payload: {} });
    assert.equal(response.statusCode, 400);
    assert.deepEqual(response.json(), {
      success: false,
      error: {
        code: 'validation_failed',
        message: 'body.hosts[1].id: no member has this id',
        hint: response.json<{ error: { hint: string } }>().error.hint,
      },
    });
  });

  it("uses the route's refusalPath to name the field where the request holds it", async () => {
    const { auth } = await t.community();
    const response = await t.request({ method: 'POST', url: '/admin/v0/test/refuses-renamed', headers: auth, payload: {} });
    assert.equal(response.statusCode, 400);
    assert.equal(response.json<{ error: { message: string } }>().error.message, 'body.renamed.title: must be at most 10 characters');
  });

  it('answers a refusal without failures as a plain validation_failed, not a 500', async () => {
    const { auth } = await t.community();
    const response = await t.request({ method: 'POST', url: '/admin/v0/test/refuses-whole', headers: auth, payload: {} });
    assert.equal(response.statusCode, 400);
    assert.equal(response.json<{ error: { code: string } }>().error.code, 'validation_failed');
  });
});
