import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createSlackWorkspace, createSlackWorkspaceFactory } from '../../src/chat/index.js';
import { durationMs } from '../../src/shared/time.js';
import { type FakeChatServer, startFakeChatServer } from '../support/fake-chat-server.js';

describe('Slack workspace: inviteUser', () => {
  let fake: FakeChatServer;
  const workspace = (teamId?: string) =>
    createSlackWorkspace({ token: fake.validToken, apiUrl: fake.url, timeoutMs: durationMs(2000), teamId });

  before(async () => {
    fake = await startFakeChatServer();
  });
  after(() => fake.close());
  beforeEach(() => fake.reset());

  it('answers invited with code ok and the channels, sending them comma-separated', async () => {
    const result = await workspace().inviteUser({ email: 'ada@example.com', channelIds: ['C111', 'C222'], fullName: 'Ada Lovelace' });
    assert.deepEqual(result, { status: 'invited', code: 'ok', channel_ids: ['C111', 'C222'], detail: 'Invitation sent.' });
    const invite = fake.calls.find((c) => c.method === 'admin.users.invite');
    assert.equal(invite?.params.channel_ids, 'C111,C222');
    assert.equal(invite?.params.team_id, fake.teamId);
    assert.equal(invite?.params.real_name, 'Ada Lovelace');
    assert.equal(invite?.token, fake.validToken);
  });

  it('finds the team id once through auth.test and reuses it', async () => {
    const ws = workspace();
    await ws.inviteUser({ email: 'a@example.com', channelIds: ['C1'] });
    await ws.inviteUser({ email: 'b@example.com', channelIds: ['C1'] });
    assert.equal(fake.calls.filter((c) => c.method === 'auth.test').length, 1);
    assert.equal(fake.invitations.length, 2);
  });

  it('does not call auth.test when the connection knows its team id', async () => {
    await workspace(fake.teamId).inviteUser({ email: 'a@example.com', channelIds: ['C1'] });
    assert.deepEqual(
      fake.calls.map((c) => c.method),
      ['admin.users.invite'],
    );
  });

  it('asks auth.test again after a failed team id lookup', async () => {
    const ws = workspace();
    fake.setBehaviour('auth.test', { error: 'internal_error' });
    const first = await ws.inviteUser({ email: 'a@example.com', channelIds: ['C1'] });
    assert.equal(first.code, 'internal_error');
    fake.setBehaviour('auth.test', 'ok');
    const second = await ws.inviteUser({ email: 'a@example.com', channelIds: ['C1'] });
    assert.equal(second.status, 'invited');
  });

  it('reports a workspace member as already_in_workspace with already_in_team', async () => {
    fake.addUser({ email: 'grace@example.com', real_name: 'Grace Hopper' });
    const result = await workspace().inviteUser({ email: 'Grace@Example.com', channelIds: ['C1'] });
    assert.equal(result.status, 'already_in_workspace');
    assert.equal(result.code, 'already_in_team');
    assert.deepEqual(result.channel_ids, ['C1']);
  });

  it('reports an outstanding invitation as already_in_workspace with already_in_team_invited_user', async () => {
    const ws = workspace();
    assert.equal((await ws.inviteUser({ email: 'lin@example.com', channelIds: ['C1'] })).status, 'invited');
    const second = await ws.inviteUser({ email: 'lin@example.com', channelIds: ['C1'] });
    assert.equal(second.status, 'already_in_workspace');
    assert.equal(second.code, 'already_in_team_invited_user');
    assert.equal(fake.invitations.length, 1);
  });

  it('maps an ok:false error to failed with Slack code and a sentence', async () => {
    const result = await workspace().inviteUser({ email: 'not-an-email', channelIds: ['C1'] });
    assert.equal(result.status, 'failed');
    assert.equal(result.code, 'invalid_email');
    assert.match(result.detail, /invalid/);
  });

  it('maps an unknown Slack error to failed with that code', async () => {
    fake.setBehaviour('admin.users.invite', { error: 'not_allowed_token_type' });
    const result = await workspace().inviteUser({ email: 'a@example.com', channelIds: ['C1'] });
    assert.deepEqual([result.status, result.code], ['failed', 'not_allowed_token_type']);
    fake.setBehaviour('admin.users.invite', { error: 'some_future_error' });
    const other = await workspace().inviteUser({ email: 'a@example.com', channelIds: ['C1'] });
    assert.deepEqual([other.code, other.detail], ['some_future_error', 'Slack refused the request (some_future_error).']);
  });

  it('reports an invalid token as failed invalid_auth', async () => {
    const ws = createSlackWorkspace({ token: 'xoxp-wrong', apiUrl: fake.url, timeoutMs: durationMs(2000) });
    const result = await ws.inviteUser({ email: 'a@example.com', channelIds: ['C1'] });
    assert.deepEqual([result.status, result.code], ['failed', 'invalid_auth']);
  });

  it('invites to the default channels when no channel ids are given', async () => {
    fake.setDefaultChannels(['C0GENERAL', 'C0RANDOM']);
    const result = await workspace().inviteUser({ email: 'a@example.com', channelIds: [] });
    assert.equal(result.status, 'invited');
    assert.deepEqual(result.channel_ids, ['C0GENERAL', 'C0RANDOM']);
    assert.deepEqual(fake.invitations[0]?.channel_ids, ['C0GENERAL', 'C0RANDOM']);
  });

  it('fails with channel_ids_required when there are neither channel ids nor default channels', async () => {
    fake.setDefaultChannels([]);
    const result = await workspace().inviteUser({ email: 'a@example.com', channelIds: [] });
    assert.deepEqual([result.status, result.code, result.channel_ids], ['failed', 'channel_ids_required', []]);
    assert.equal(fake.invitations.length, 0);
  });

  it('reports a failed default channel lookup with Slack code', async () => {
    fake.setBehaviour('admin.teams.settings.info', { error: 'missing_scope' });
    const result = await workspace().inviteUser({ email: 'a@example.com', channelIds: [] });
    assert.deepEqual([result.status, result.code], ['failed', 'missing_scope']);
  });

  it('factory reuses one workspace per connection, so the team id is looked up once', async () => {
    const factory = createSlackWorkspaceFactory({ apiUrl: fake.url, timeoutMs: durationMs(2000) });
    const connection = { token: fake.validToken, teamId: null };
    await factory(connection).inviteUser({ email: 'a@example.com', channelIds: ['C1'] });
    await factory({ ...connection }).inviteUser({ email: 'b@example.com', channelIds: ['C1'] });
    assert.equal(factory(connection), factory({ ...connection }));
    assert.equal(fake.calls.filter((c) => c.method === 'auth.test').length, 1);
  });
});
