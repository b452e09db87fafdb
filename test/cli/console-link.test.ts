import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { ensureBuilt } from '../http/server-processes.js';
import { parseJsonOutput, runCli } from '../support/cli.js';
import { createTestDatabase, engines, type TestDatabase, testConfig } from '../support/harness.js';

const minuteMs = 60_000;

/** The token of a console URL: what follows `#token=`, with nothing before the fragment but the path. */
function tokenOf(url: string, base: string): string {
  const match = /^(.*)\/console\/#token=([A-Za-z0-9_-]+)$/.exec(url);
  assert.ok(match, `not a console URL: ${url}`);
  assert.equal(match[1], base);
  assert.ok(!url.includes('?'), 'the token is never in a query string');
  return match[2] as string;
}

for (const { engine, skip } of engines) {
  describe(`community-admin console link [${engine}]`, { skip }, () => {
    let testDb: TestDatabase;
    let env: Record<string, string>;
    let communityId = '';
    let app: FastifyInstance;
    before(async () => {
      ensureBuilt();
      testDb = await createTestDatabase(engine);
      env = testDb.env;
      communityId = parseJsonOutput<{ id: string }>(
        await runCli(['community', 'create', '--name', 'Console', '--plan', 'growth', '--json'], env),
      ).id;
      // A server on the same database (the system clock, as the CLI's), to use the links the CLI prints.
      app = await buildApp({ config: testConfig(), database: testDb.database, logger: false });
      await app.ready();
    });
    after(async () => {
      await app?.close();
      await testDb?.drop();
    });

    const signIn = (token: string) =>
      app.inject({
        method: 'POST',
        url: '/admin/v0/console/sessions',
        payload: { token },
        headers: { 'content-type': 'application/json' },
      });

    it('--json prints exactly {url, expires_at}: the server address, the token in the fragment, 15 minutes; the link works once', async () => {
      const started = Date.now();
      const res = await runCli(['console', 'link', '--community', communityId, '--json'], env);
      assert.equal(res.code, 0, res.stderr);
      const link = parseJsonOutput<{ url: string; expires_at: string }>(res);
      assert.deepEqual(Object.keys(link).sort(), ['expires_at', 'url']);
      const token = tokenOf(link.url, 'http://127.0.0.1:3000');
      assert.ok(token.length >= 43, 'at least 256 bits, base64url');
      const lifetime = Date.parse(link.expires_at) - started;
      assert.ok(lifetime >= 15 * minuteMs - 1000 && lifetime <= 15 * minuteMs + minuteMs, link.expires_at);

      const session = await signIn(token);
      assert.equal(session.statusCode, 201, session.body);
      assert.equal(session.json<{ data: { community: { id: string } } }>().data.community.id, communityId);
      assert.equal((await signIn(token)).statusCode, 401, 'once');
      // The session is in the key list, as a console key.
      const keys = await runCli(['key', 'list', '--community', communityId], env);
      assert.match(keys.stdout, /Console session\s+console\s/);
    });

    it('prints the URL for people, under PUBLIC_BASE_URL (with its path) or HOST and PORT', async () => {
      const human = await runCli(['console', 'link', '--community', communityId], {
        ...env,
        PUBLIC_BASE_URL: 'https://admin.example.org/community/',
      });
      assert.equal(human.code, 0, human.stderr);
      const url = /^ {2}(\S+)$/m.exec(human.stdout)?.[1] ?? '';
      tokenOf(url, 'https://admin.example.org/community');
      assert.match(human.stdout, new RegExp(`Console link for community ${communityId} \\(works once, until \\S+Z\\)`));
      assert.match(human.stdout, /do not share it/);

      const hosted = parseJsonOutput<{ url: string }>(
        await runCli(['console', 'link', '--community', communityId, '--json'], { ...env, HOST: '::1', PORT: '8080' }),
      );
      tokenOf(hosted.url, 'http://[::1]:8080');
      const wildcard = parseJsonOutput<{ url: string }>(
        await runCli(['console', 'link', '--community', communityId, '--json'], { ...env, HOST: '0.0.0.0', PORT: '8080' }),
      );
      tokenOf(wildcard.url, 'http://127.0.0.1:8080');
    });

    it('--expires takes s, m or h up to 24 hours', async () => {
      const cases = [
        ['90s', 90_000],
        ['2h', 2 * 60 * minuteMs],
        ['24h', 24 * 60 * minuteMs],
        ['1440m', 24 * 60 * minuteMs],
      ] as const;
      const results = await Promise.all(
        cases.map(async ([text, ms]) => {
          const started = Date.now();
          const res = await runCli(['console', 'link', '--community', communityId, '--expires', text, '--json'], env);
          return { text, ms, started, res };
        }),
      );
      for (const { text, ms, started, res } of results) {
        assert.equal(res.code, 0, `${text}: ${res.stderr}`);
        const lifetime = Date.parse(parseJsonOutput<{ expires_at: string }>(res).expires_at) - started;
        assert.ok(lifetime >= ms - 1000 && lifetime <= ms + minuteMs, `${text}: ${lifetime}`);
      }
    });

    it('refuses other durations, an unknown community and a missing --community, with their exit statuses', async () => {
      const durations = ['15', '1d', '25h', '1441m', '0m', '1.5h', 'abc', '15 m', ''];
      const refused = await Promise.all(
        durations.map((text) => runCli(['console', 'link', '--community', communityId, '--expires', text, '--json'], env)),
      );
      refused.forEach((res, i) => {
        assert.equal(res.code, 1, `${durations[i]}: ${res.stdout}`);
        assert.equal(res.stdout, '', 'nothing on stdout');
        assert.match(res.stderr, /^--expires must be /, durations[i]);
      });
      assert.match(refused[2]?.stderr ?? '', /at most 24h/);
      assert.match(refused[1]?.stderr ?? '', /seconds, minutes or hours such as 90s, 15m or 2h/);

      const unknown = await runCli(['console', 'link', '--community', '00000000-0000-4000-8000-000000000000'], env);
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /No community with id "00000000-0000-4000-8000-000000000000"/);
      const missing = await runCli(['console', 'link'], env);
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /--community/);
    });

    it('refuses with CONSOLE=false', async () => {
      const res = await runCli(['console', 'link', '--community', communityId], { ...env, CONSOLE: 'false' });
      assert.equal(res.code, 1);
      assert.equal(res.stdout, '');
      assert.match(res.stderr, /The console is turned off \(CONSOLE=false\)/);
    });
  });
}
