import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { startServer } from '../support/server-process.js';

describe('the real server process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'community-admin-server-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const env = { DATABASE_URL: `sqlite:${join(dir, 'community.db')}` };

  it('prints a key once on first start, serves real HTTP with it, and stops gracefully on SIGTERM', async () => {
    const server = await startServer(env);
    const match = /Bearer ([A-Za-z0-9_-]{20,})/.exec(server.output());
    assert.ok(match, `no key printed: ${server.output()}`);
    assert.match(server.output(), /curl -H "Authorization: Bearer /);
    const key = match[1] as string;

    const res = await fetch(`http://127.0.0.1:${server.port}/admin/v0/openapi.json`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(res.status, 200);
    const events = await fetch(`http://127.0.0.1:${server.port}/admin/v0/calendar_events`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(events.status, 200);
    const unauthorized = await fetch(`http://127.0.0.1:${server.port}/admin/v0/calendar_events`);
    assert.equal(unauthorized.status, 401);

    const started = Date.now();
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
    assert.ok(Date.now() - started < 10_000);
  });

  it('prints no key on a later start', async () => {
    const server = await startServer(env);
    assert.doesNotMatch(server.output(), /Bearer /);
    server.child.kill('SIGINT');
    assert.equal(await server.exited, 0);
  });

  it('finishes an in-flight request before exiting on SIGTERM', async () => {
    const server = await startServer(env);
    // A slow client: the request is in flight (body not yet complete) when the signal arrives.
    const pending = fetch(`http://127.0.0.1:${server.port}/healthz`);
    server.child.kill('SIGTERM');
    const res = await pending.catch(() => null);
    assert.ok(res === null || res.status === 200 || res.status === 503);
    assert.equal(await server.exited, 0);
  });
});
