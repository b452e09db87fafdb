import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import { assetsOf, ensureConsoleBuilt } from '../support/console-kit.js';
import { createTestDatabase, type TestDatabase, testConfig } from '../support/harness.js';

// Serving the built console (issue 39): no database is touched, so one engine is enough.

const appPaths = [
  '/console/',
  '/console/events',
  '/console/members',
  '/console/posts',
  '/console/files',
  '/console/awards',
  '/console/api-keys',
  '/console/webhooks',
  '/console/slack',
  '/console/activity',
];
const policy = "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'";

function assertConsoleHeaders(response: LightMyRequestResponse, what: string): void {
  const csp = String(response.headers['content-security-policy']);
  assert.equal(csp, policy, `${what}: Content-Security-Policy`);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/, what);
  assert.equal(response.headers['x-content-type-options'], 'nosniff', what);
  assert.equal(response.headers['referrer-policy'], 'no-referrer', what);
}

async function startApp(env: Record<string, string>, consoleDir?: string): Promise<{ app: FastifyInstance; db: TestDatabase }> {
  const db = await createTestDatabase('sqlite');
  const app = await buildApp({ config: testConfig(env), database: db.database, logger: false, ...(consoleDir ? { consoleDir } : {}) });
  await app.ready();
  return { app, db };
}

describe('the console served at /console', () => {
  let app: FastifyInstance;
  let db: TestDatabase;
  before(async () => {
    ensureConsoleBuilt();
    ({ app, db } = await startApp({}));
  });
  after(async () => {
    await app?.close();
    await db?.drop();
  });

  it('answers the page at every app path, revalidated (no-cache), with the console headers', async () => {
    for (const url of appPaths) {
      const response = await app.inject({ url });
      assert.equal(response.statusCode, 200, url);
      assert.match(String(response.headers['content-type']), /^text\/html/, url);
      assert.equal(response.headers['cache-control'], 'no-cache', url);
      assertConsoleHeaders(response, url);
      assert.match(response.body, /<div id="app"><\/div>/, url);
    }
  });

  it('the page has no inline script, no inline style and nothing from another origin', async () => {
    const html = (await app.inject({ url: '/console/' })).body;
    const scripts = [...html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)];
    assert.ok(scripts.length > 0);
    for (const [tag, body] of scripts) {
      assert.match(tag, /\bsrc="\/console\/assets\//, 'every script is a file of ours');
      assert.equal(body?.trim(), '', 'no script body');
    }
    assert.doesNotMatch(html, /<style\b/i);
    assert.doesNotMatch(html, /\sstyle=/i);
    assert.doesNotMatch(html, /\s(?:src|href)="(?:https?:)?\/\//i);
    assert.doesNotMatch(html, /\son[a-z]+=/i, 'no inline event handler');
  });

  it('serves the hashed assets immutable, with their types and the console headers', async () => {
    const html = (await app.inject({ url: '/console/' })).body;
    const assets = assetsOf(html);
    assert.ok(assets.some((a) => a.endsWith('.js')) && assets.some((a) => a.endsWith('.css')), assets.join(', '));
    for (const url of assets) {
      const response = await app.inject({ url });
      assert.equal(response.statusCode, 200, url);
      assert.equal(response.headers['cache-control'], 'public, max-age=31536000, immutable', url);
      const expected = url.endsWith('.js') ? /^text\/javascript/ : url.endsWith('.css') ? /^text\/css/ : /^image\/svg\+xml$/;
      assert.match(String(response.headers['content-type']), expected, url);
      assertConsoleHeaders(response, url);
      assert.ok(response.rawPayload.length > 0);
    }
  });

  it('redirects /console to /console/', async () => {
    const response = await app.inject({ url: '/console' });
    assert.equal(response.statusCode, 308);
    assert.equal(response.headers.location, '/console/');
  });

  it('answers 404 (not the page, not a file elsewhere) for a missing asset, a file name or a way out of the folder', async () => {
    for (const url of [
      '/console/assets/missing-0000.js',
      '/console/favicon.ico',
      '/console/assets/..%2f..%2fpackage.json',
      '/console/..%2fpackage.json',
    ]) {
      const response = await app.inject({ url });
      assert.equal(response.statusCode, 404, url);
      assertConsoleHeaders(response, url);
      assert.doesNotMatch(response.body, /"name": "community-admin"/, url);
    }
  });

  it('leaves the API as it was: no console policy on /admin/v0', async () => {
    const response = await app.inject({ url: '/admin/v0/openapi.json' });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-security-policy'], undefined);
  });
});

describe('the console turned off or not built', () => {
  it('CONSOLE=false answers 404 at every console path', async () => {
    const { app, db } = await startApp({ CONSOLE: 'false' });
    try {
      for (const url of ['/console', '/console/', '/console/events']) {
        const response = await app.inject({ url });
        assert.equal(response.statusCode, 404, url);
        assert.doesNotMatch(response.body, /<div id="app">/);
      }
    } finally {
      await app.close();
      await db.drop();
    }
  });

  it('a missing build answers 503 with a page saying how to build it, never a 500', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'console-missing-'));
    const { app, db } = await startApp({}, join(empty, 'dist'));
    try {
      for (const url of ['/console/', '/console/events']) {
        const response = await app.inject({ url });
        assert.equal(response.statusCode, 503, url);
        assert.match(String(response.headers['content-type']), /^text\/html/);
        assert.match(response.body, /npm install/);
        assert.match(response.body, /npm run console:build/);
        assertConsoleHeaders(response, url);
      }
      assert.equal((await app.inject({ url: '/console/assets/index-abc.js' })).statusCode, 404);
    } finally {
      await app.close();
      await db.drop();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
