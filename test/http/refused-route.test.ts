/**
 * A route needs no catch of its own for a refusal: whatever route throws a `Refused` (a command's,
 * a rule's) is answered by the error handler with the documented 400 validation_failed envelope,
 * naming `body.<path>` unless the route places its refusals elsewhere (`config.refusalPath`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { registerErrorHandler } from '../../src/http/error-handler.js';
import { refusalIn } from '../../src/routing/request-context.js';
import { Refused, refuse } from '../../src/shared/failures.js';

const envelope = (message: string) =>
  JSON.stringify({ success: false, error: { code: 'validation_failed', message, hint: 'Correct the named field and retry.' } });

describe('a route that throws a Refused', () => {
  let app: FastifyInstance;
  let base: string;

  before(async () => {
    app = Fastify({ logger: false });
    registerErrorHandler(app);
    // Inside a plugin, as every module's routes are.
    await app.register(async (routes) => {
      routes.post('/refuses', async () => {
        throw refuse(['hosts', 1], 'unknown_reference', 'no profile "x" in this community');
      });
      routes.get('/refuses-at-once', () => {
        throw new Refused([
          { path: [], rule: 'whole', message: 'is refused as a whole' },
          { path: ['second'], rule: 'other', message: 'is not shown' },
        ]);
      });
      routes.get('/refuses/:award_id', { config: { refusalPath: refusalIn({ award_id: 'path' }) } }, async () => {
        throw refuse(['award_id'], 'format', 'must be a UUID');
      });
      routes.get('/refuses-query', { config: { refusalPath: refusalIn('query') } }, async () => {
        throw refuse(['q'], 'required', 'must not be empty');
      });
    });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  after(async () => {
    await app?.close();
  });

  const cases: [string, string, string, string][] = [
    ['an async handler', 'POST', '/refuses', 'body.hosts[1]: no profile "x" in this community'],
    ['a handler that throws at once, the first failure named', 'GET', '/refuses-at-once', 'body: is refused as a whole'],
    ['a route placing its refusal in the path', 'GET', '/refuses/nope', 'path.award_id: must be a UUID'],
    ['a route placing its refusals in the query', 'GET', '/refuses-query', 'query.q: must not be empty'],
  ];

  for (const [what, method, path, message] of cases) {
    it(`${what}: 400 validation_failed in the envelope`, async () => {
      const res = await fetch(`${base}${path}`, { method });
      assert.equal(res.status, 400);
      assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
      assert.equal(await res.text(), envelope(message));
    });
  }
});
