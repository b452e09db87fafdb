import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { type FakeChatServer, startFakeChatServer } from '../support/fake-chat-server.js';

describe('fake chat server (the Slack Web API as documented)', () => {
  let fake: FakeChatServer;
  const post = (method: string, body: string, headers: Record<string, string>) =>
    fetch(`${fake.url}${method}`, { method: 'POST', body, headers });
  const form = (method: string, params: Record<string, string>, token: string | null = fake.validToken) =>
    post(method, new URLSearchParams(params).toString(), {
      'content-type': 'application/x-www-form-urlencoded',
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
    });

  before(async () => {
    fake = await startFakeChatServer();
  });
  after(() => fake.close());
  beforeEach(() => fake.reset());

  it('serves on 127.0.0.1 with a base URL ending in /api/', () => {
    assert.match(fake.url, /^http:\/\/127\.0\.0\.1:\d+\/api\/$/);
    assert.match(fake.validToken, /^xoxp-/);
  });

  it('accepts a JSON body and a form body alike', async () => {
    const json = await post('admin.users.invite', JSON.stringify({ team_id: fake.teamId, email: 'a@example.com', channel_ids: ['C1'] }), {
      'content-type': 'application/json; charset=utf-8',
      authorization: `Bearer ${fake.validToken}`,
    });
    assert.deepEqual(await json.json(), { ok: true });
    const viaForm = await form('admin.users.invite', { team_id: fake.teamId, email: 'b@example.com', channel_ids: 'C1,C2' });
    assert.deepEqual(await viaForm.json(), { ok: true });
    assert.deepEqual(
      fake.invitations.map((i) => [i.email, i.channel_ids]),
      [
        ['a@example.com', ['C1']],
        ['b@example.com', ['C1', 'C2']],
      ],
    );
  });

  it('takes the token from the body as Slack allows, and records calls without it in params', async () => {
    const res = await post('auth.test', new URLSearchParams({ token: fake.validToken }).toString(), {
      'content-type': 'application/x-www-form-urlencoded',
    });
    assert.equal(((await res.json()) as { team_id: string }).team_id, fake.teamId);
    assert.deepEqual(fake.calls, [{ method: 'auth.test', params: {}, token: fake.validToken }]);
  });

  it('answers not_authed without a token and invalid_auth with a wrong one, with HTTP 200', async () => {
    const none = await form('auth.test', {}, null);
    assert.equal(none.status, 200);
    assert.deepEqual(await none.json(), { ok: false, error: 'not_authed' });
    assert.deepEqual(await (await form('auth.test', {}, 'xoxp-wrong')).json(), { ok: false, error: 'invalid_auth' });
  });

  it('answers Slack codes for members, outstanding invitations and bad arguments', async () => {
    fake.addUser({ email: 'member@example.com' });
    const invite = (email: string, channel_ids = 'C1') =>
      form('admin.users.invite', { team_id: fake.teamId, email, channel_ids }).then((r) => r.json());
    assert.deepEqual(await invite('member@example.com'), { ok: false, error: 'already_in_team' });
    assert.deepEqual(await invite('new@example.com'), { ok: true });
    assert.deepEqual(await invite('NEW@example.com'), { ok: false, error: 'already_in_team_invited_user' });
    assert.deepEqual(await invite('x@example.com', ''), { ok: false, error: 'invalid_arguments' });
    assert.deepEqual(await invite('x@example.com', 'general'), { ok: false, error: 'failed_to_validate_channels' });
    assert.deepEqual(await invite('not-an-email'), { ok: false, error: 'invalid_email' });
    assert.deepEqual(await (await form('admin.users.invite', { team_id: 'T0OTHER', email: 'y@example.com', channel_ids: 'C1' })).json(), {
      ok: false,
      error: 'team_not_found',
    });
    assert.deepEqual(await (await form('chat.unfurl', {})).json(), { ok: false, error: 'unknown_method' });
  });

  it('rate limits with HTTP 429 and Retry-After in seconds', async () => {
    fake.setBehaviour('users.lookupByEmail', { rateLimited: 7 });
    const res = await form('users.lookupByEmail', { email: 'a@example.com' });
    assert.equal(res.status, 429);
    assert.equal(res.headers.get('retry-after'), '7');
    assert.deepEqual(await res.json(), { ok: false, error: 'ratelimited' });
  });

  it('reset forgets users, invitations, calls and behaviours', async () => {
    fake.addUser({ email: 'a@example.com' });
    fake.setBehaviour('auth.test', { error: 'internal_error' });
    await form('auth.test', {});
    fake.reset();
    assert.deepEqual(fake.calls, []);
    assert.deepEqual(await (await form('users.lookupByEmail', { email: 'a@example.com' })).json(), { ok: false, error: 'users_not_found' });
    assert.equal(((await (await form('auth.test', {})).json()) as { ok: boolean }).ok, true);
  });

  it('closes promptly even with a delayed answer pending', async () => {
    const other = await startFakeChatServer();
    other.setBehaviour('auth.test', { delayMs: 60_000 });
    const pending = fetch(`${other.url}auth.test`, { method: 'POST', headers: { authorization: `Bearer ${other.validToken}` } }).catch(
      (e: unknown) => e,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const start = performance.now();
    await other.close();
    assert.ok(performance.now() - start < 1000);
    assert.ok((await pending) instanceof Error);
  });
});
