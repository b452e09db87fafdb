import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import {
  ChatNotConfiguredError,
  ChatUnavailableError,
  createSlackWorkspace,
  noChatWorkspace,
  verifySlackToken,
} from '../../src/chat/index.js';
import { durationMs } from '../../src/shared/time.js';
import { type FakeChatServer, startFakeChatServer } from '../support/fake-chat-server.js';

describe('Slack workspace: lookupUserByEmail and verifySlackToken', () => {
  let fake: FakeChatServer;
  const workspace = (token = fake.validToken) =>
    createSlackWorkspace({ token, apiUrl: fake.url, timeoutMs: durationMs(2000), teamId: fake.teamId });

  before(async () => {
    fake = await startFakeChatServer();
  });
  after(() => fake.close());
  beforeEach(() => fake.reset());

  it('finds a user by email and maps the profile fields', async () => {
    const id = fake.addUser({
      email: 'ada@example.com',
      real_name: 'Ada Lovelace',
      first_name: 'Ada',
      last_name: 'Lovelace',
      is_admin: true,
      image_72: 'https://img.test/72.png',
      image_original: 'https://img.test/original.png',
    });
    const user = await workspace().lookupUserByEmail('  ada@example.com ');
    assert.deepEqual(user, {
      id,
      email: 'ada@example.com',
      real_name: 'Ada Lovelace',
      first_name: 'Ada',
      last_name: 'Lovelace',
      is_admin: true,
      is_bot: false,
      image_72: 'https://img.test/72.png',
      image_original: 'https://img.test/original.png',
    });
  });

  it('falls back to the largest avatar rendition when Slack has no image_original', async () => {
    const id = fake.addUser({ email: 'bot@example.com', is_bot: true });
    const user = await workspace().lookupUserByEmail('bot@example.com');
    assert.equal(user?.is_bot, true);
    assert.equal(user?.image_original, `https://avatars.fake.slack.test/${id}_512.png`);
  });

  it('answers null for an unknown email (users_not_found)', async () => {
    assert.equal(await workspace().lookupUserByEmail('nobody@example.com'), null);
    assert.equal(fake.calls[0]?.method, 'users.lookupByEmail');
  });

  it('answers null for a deactivated workspace account', async () => {
    fake.addUser({ email: 'gone@example.com', deleted: true });
    assert.equal(await workspace().lookupUserByEmail('gone@example.com'), null);
  });

  it('throws ChatUnavailableError with Slack code when the token is refused', async () => {
    await assert.rejects(
      workspace('xoxp-wrong').lookupUserByEmail('ada@example.com'),
      (e) => e instanceof ChatUnavailableError && e.code === 'invalid_auth',
    );
  });

  it('verifySlackToken answers ok with the team id of a valid token', async () => {
    assert.deepEqual(await verifySlackToken({ token: fake.validToken, apiUrl: fake.url, timeoutMs: durationMs(2000) }), {
      ok: true,
      teamId: fake.teamId,
    });
  });

  it('verifySlackToken answers invalid_auth for a wrong token', async () => {
    assert.deepEqual(await verifySlackToken({ token: 'xoxp-wrong', apiUrl: fake.url, timeoutMs: durationMs(2000) }), {
      ok: false,
      code: 'invalid_auth',
    });
  });

  it('verifySlackToken reports transport failures as codes instead of throwing', async () => {
    fake.setBehaviour('auth.test', { rateLimited: 10 });
    assert.deepEqual(await verifySlackToken({ token: fake.validToken, apiUrl: fake.url, timeoutMs: durationMs(2000) }), {
      ok: false,
      code: 'rate_limited',
    });
    fake.setBehaviour('auth.test', { delayMs: 5000 });
    assert.deepEqual(await verifySlackToken({ token: fake.validToken, apiUrl: fake.url, timeoutMs: durationMs(200) }), {
      ok: false,
      code: 'timeout',
    });
  });
});

describe('noChatWorkspace', () => {
  it('rejects both operations with ChatNotConfiguredError (code chat_admin_not_configured)', async () => {
    const isNotConfigured = (e: unknown) => e instanceof ChatNotConfiguredError && e.code === 'chat_admin_not_configured';
    await assert.rejects(noChatWorkspace.inviteUser({ email: 'a@example.com', channelIds: [] }), isNotConfigured);
    await assert.rejects(noChatWorkspace.lookupUserByEmail('a@example.com'), isNotConfigured);
  });
});
