/**
 * `community-admin chat connect` through the real bin (the built dist: `npm test` builds first),
 * against a temp database of each engine and the fake chat server.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../../src/app.js';
import { createSlackWorkspaceFactory } from '../../src/chat/index.js';
import { createApiKey } from '../../src/modules/api-keys/api-keys.commands.js';
import { selectChatConnection } from '../../src/modules/chat-connections/chat-connections.queries.js';
import { createCommunity } from '../../src/modules/communities/communities.commands.js';
import { systemClock } from '../../src/shared/clock.js';
import { SecretBox } from '../../src/shared/secret-box.js';
import { durationMs } from '../../src/shared/time.js';
import { type FakeChatServer, startFakeChatServer } from '../support/fake-chat-server.js';
import { createTestDatabase, engines, type TestDatabase, testConfig } from '../support/harness.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = fileURLToPath(new URL('../../bin/community-admin.js', import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the bin without blocking this process (the fake chat server answers from here). */
function cli(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', CHAT_TIMEOUT_MS: '2000', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A local URL where nothing listens (a port that was free a moment ago). */
async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 9;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/api/`;
}

for (const { engine, skip } of engines) {
  describe(`community-admin chat connect [${engine}]`, { skip }, () => {
    let fake: FakeChatServer;
    let testDb: TestDatabase;
    let env: Record<string, string>;

    before(async () => {
      assert.ok(existsSync(fileURLToPath(new URL('../../dist/cli/chat.cli.js', import.meta.url))), 'build first: npm run build');
      fake = await startFakeChatServer();
      testDb = await createTestDatabase(engine);
      env = { ...testDb.env, CHAT_API_URL: fake.url };
    });
    after(async () => {
      await fake?.close();
      await testDb?.drop();
    });
    beforeEach(() => fake.reset());

    const newCommunity = async () =>
      (await createCommunity({ database: testDb.database, clock: systemClock }, { name: 'Chat', plan: 'enterprise' })).id;

    it('verifies the token, stores it with the team id and prints exactly {community_id, connected: true}', async () => {
      const communityId = await newCommunity();
      const run = await cli(['chat', 'connect', '--community', communityId, '--token', fake.validToken, '--json'], env);
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual(JSON.parse(run.stdout), { community_id: communityId, connected: true });
      assert.equal(run.stdout.trim().split('\n').length, 1);
      assert.deepEqual(
        fake.calls.map((c) => [c.method, c.token]),
        [['auth.test', fake.validToken]],
      );
      const stored = await selectChatConnection(testDb.database.db, communityId);
      assert.equal(stored?.token, fake.validToken);
      assert.equal(stored?.team_id, fake.teamId);
    });

    it('with SECRETS_KEY, stores the admin token sealed; invitations open it; chat reseal-secrets moves it to a new key', async () => {
      const communityId = await newCommunity();
      const [first, second] = [randomBytes(32).toString('base64'), randomBytes(32).toString('base64')];
      const run = await cli(['chat', 'connect', '--community', communityId, '--token', fake.validToken], { ...env, SECRETS_KEY: first });
      assert.equal(run.code, 0, run.stderr);
      const storedToken = async () =>
        (
          await testDb.database.db
            .selectFrom('chat_connections')
            .select('token')
            .where('community_id', '=', communityId)
            .executeTakeFirstOrThrow()
        ).token;
      const sealed = await storedToken();
      assert.match(sealed, /^sealed:v1:[0-9a-f]{8}:/);
      assert.equal(sealed.includes(fake.validToken), false);

      // The API, configured with the key, invites with the token it opened.
      const app = await buildApp({
        config: testConfig({ SECRETS_KEY: first }),
        database: testDb.database,
        logger: false,
        services: { chat: createSlackWorkspaceFactory({ apiUrl: fake.url, timeoutMs: durationMs(2000) }) },
      });
      try {
        const key = (await createApiKey({ database: testDb.database, clock: systemClock, communityId }, { label: 'invite' })).key;
        const res = await app.inject({
          method: 'POST',
          url: '/admin/v0/members',
          headers: { authorization: `Bearer ${key}` },
          payload: { email: 'sealed@example.com', full_name: 'Sealed Token', invite_to_chat: true },
        });
        assert.equal(res.statusCode, 201, res.body);
        assert.equal(res.json<{ data: { chat_invite: { status: string } } }>().data.chat_invite.status, 'invited');
        const invite = fake.calls.find((c) => c.method === 'admin.users.invite');
        assert.equal(invite?.token, fake.validToken);
      } finally {
        await app.close();
      }

      const resealed = await cli(['chat', 'reseal-secrets'], { ...env, SECRETS_KEY: second, SECRETS_KEY_PREVIOUS: first });
      assert.equal(resealed.code, 0, resealed.stderr);
      const moved = await storedToken();
      assert.notEqual(moved, sealed);
      assert.match(moved, /^sealed:v1:[0-9a-f]{8}:/);
      assert.equal(new SecretBox({ key: second, previousKeys: [] }).open(moved), fake.validToken);
    });

    it('never prints the token, with or without --json', async () => {
      const communityId = await newCommunity();
      for (const args of [['--json'], []]) {
        const run = await cli(['chat', 'connect', '--community', communityId, '--token', fake.validToken, ...args], env);
        assert.equal(run.code, 0, run.stderr);
        assert.equal(`${run.stdout}${run.stderr}`.includes(fake.validToken), false);
        assert.equal(`${run.stdout}${run.stderr}`.includes(fake.validToken.slice(-12)), false);
      }
    });

    it('replaces the stored connection on a second connect (one row per community)', async () => {
      const communityId = await newCommunity();
      await cli(['chat', 'connect', '--community', communityId, '--token', fake.validToken, '--json'], env);
      const again = await cli(['chat', 'connect', '--community', communityId, '--token', ` ${fake.validToken} `, '--json'], env);
      assert.equal(again.code, 0, again.stderr);
      const rows = await testDb.database.db
        .selectFrom('chat_connections')
        .select('token')
        .where('community_id', '=', communityId)
        .execute();
      assert.deepEqual(rows, [{ token: fake.validToken }]);
    });

    it('exits 1 with a clear message for a token the chat platform rejects, stores nothing and does not echo it', async () => {
      const communityId = await newCommunity();
      const badToken = 'xoxp-not-a-real-token-123456';
      const run = await cli(['chat', 'connect', '--community', communityId, '--token', badToken, '--json'], env);
      assert.equal(run.code, 1);
      assert.equal(run.stdout, '');
      assert.match(run.stderr, /rejected/i);
      assert.match(run.stderr, /invalid_auth/);
      assert.equal(run.stderr.includes(badToken), false);
      assert.equal(await selectChatConnection(testDb.database.db, communityId), undefined);
    });

    it('exits 1 when the chat platform cannot be reached, storing nothing', async () => {
      const communityId = await newCommunity();
      const run = await cli(['chat', 'connect', '--community', communityId, '--token', fake.validToken], {
        ...env,
        CHAT_API_URL: await deadUrl(),
      });
      assert.equal(run.code, 1);
      assert.match(run.stderr, /chat_unreachable|timeout/);
      assert.equal(run.stderr.includes(fake.validToken), false);
      assert.equal(await selectChatConnection(testDb.database.db, communityId), undefined);
    });

    it('exits 1 for an unknown community without asking the chat platform', async () => {
      const run = await cli(['chat', 'connect', '--community', 'no-such-community', '--token', fake.validToken, '--json'], env);
      assert.equal(run.code, 1);
      assert.match(run.stderr, /community/i);
      assert.equal(fake.calls.length, 0);
    });

    it('exits 2 (usage) without --token or --community', async () => {
      const communityId = await newCommunity();
      const noToken = await cli(['chat', 'connect', '--community', communityId], env);
      assert.equal(noToken.code, 2, noToken.stderr);
      const noCommunity = await cli(['chat', 'connect', '--token', fake.validToken], env);
      assert.equal(noCommunity.code, 2, noCommunity.stderr);
      assert.equal(noCommunity.stderr.includes(fake.validToken), false);
    });

    it('chat cancel-invitation reports how many pending invitations it cancelled', async () => {
      const communityId = await newCommunity();
      const run = await cli(['chat', 'cancel-invitation', '--community', communityId, '--email', 'Nobody@Example.com', '--json'], env);
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual(JSON.parse(run.stdout), { community_id: communityId, email: 'nobody@example.com', cancelled: 0 });
    });
  });
}
