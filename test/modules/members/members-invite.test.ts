import assert from 'node:assert/strict';
import { after, beforeEach, it } from 'node:test';
import { createSlackWorkspace } from '../../../src/chat/index.js';
import { cancelChatInvitations } from '../../../src/modules/members/chat-invitations.service.js';
import { startFakeChatServer } from '../../support/fake-chat-server.js';
import { describeEachEngine } from '../../support/harness.js';
import {
  type AddMemberResponse,
  checkMember,
  connectToFake,
  type ErrorResponse,
  fakeChatOptions,
  importInto,
  newId,
  postMember,
  postMemberForm,
  uniqueEmail,
} from './members-support.js';

const fake = await startFakeChatServer();
after(() => fake.close());

const inviteCalls = () => fake.calls.filter((c) => c.method === 'admin.users.invite');

describeEachEngine(
  'POST /admin/v0/members: chat invitations',
  (ctx) => {
    beforeEach(() => fake.reset());

    async function connectedCommunity() {
      const t = ctx();
      const community = await t.community();
      await connectToFake(t, fake, community.id);
      fake.calls.length = 0;
      return community;
    }

    it('without a chat connection answers 400 chat_admin_not_configured and creates nothing', async () => {
      const t = ctx();
      const { auth } = await t.community();
      const res = await postMember(t, auth, { email: 'nochat@example.com', full_name: 'No Chat', invite_to_chat: true });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json<ErrorResponse>().error.code, 'chat_admin_not_configured');
      assert.equal((await checkMember(t, auth, 'nochat@example.com')).is_member, false);
      assert.equal(fake.calls.length, 0);
    });

    it("does not use another community's connection", async () => {
      const t = ctx();
      await connectedCommunity();
      const other = await t.community();
      const res = await postMember(t, other.auth, { email: uniqueEmail(), full_name: 'Else Where', invite_to_chat: true });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json<ErrorResponse>().error.code, 'chat_admin_not_configured');
      assert.equal(inviteCalls().length, 0);
    });

    it('creates the member, then invites it to the requested channels: invited / ok', async () => {
      const t = ctx();
      const { auth } = await connectedCommunity();
      const res = await postMember(t, auth, { email: 'Ivy@Example.com', full_name: 'Ivy Invitee', invite_to_chat: true, chat_channel_ids: ['C0ONE', 'C0TWO'] });
      assert.equal(res.statusCode, 201);
      const body = res.json<AddMemberResponse>();
      assert.deepEqual(Object.keys(body.data).sort(), ['chat_invite', 'member']);
      const invite = body.data.chat_invite;
      assert.ok(invite);
      assert.equal(invite.status, 'invited');
      assert.equal(invite.code, 'ok');
      assert.deepEqual(invite.channel_ids, ['C0ONE', 'C0TWO']);
      assert.ok(invite.detail.length > 0);
      assert.deepEqual(fake.invitations, [{ email: 'ivy@example.com', channel_ids: ['C0ONE', 'C0TWO'], real_name: 'Ivy Invitee' }]);
      assert.equal(res.body.includes(fake.validToken), false);
    });

    it("invites to the workspace's default channels when no channel is named", async () => {
      const t = ctx();
      const { auth } = await connectedCommunity();
      fake.setDefaultChannels(['C0GENERAL', 'C0RANDOM']);
      const res = await postMember(t, auth, { email: uniqueEmail(), full_name: 'Dee Fault', invite_to_chat: true });
      const invite = res.json<AddMemberResponse>().data.chat_invite;
      assert.equal(invite?.status, 'invited');
      assert.deepEqual(invite?.channel_ids, ['C0GENERAL', 'C0RANDOM']);
    });

    it('accepts 10 channel ids of 32 characters', async () => {
      const t = ctx();
      const { auth } = await connectedCommunity();
      const channels = Array.from({ length: 10 }, (_, i) => `C${String(i).padStart(31, '0')}`);
      const res = await postMember(t, auth, { email: uniqueEmail(), full_name: 'Many Rooms', invite_to_chat: true, chat_channel_ids: channels });
      assert.equal(res.statusCode, 201, res.body);
      assert.deepEqual(res.json<AddMemberResponse>().data.chat_invite?.channel_ids, channels);
    });

    it('reports a user already in the workspace as already_in_workspace and still creates the member', async () => {
      const t = ctx();
      const { auth } = await connectedCommunity();
      fake.addUser({ email: 'here@example.com', real_name: 'Already Here' });
      const res = await postMember(t, auth, { email: 'here@example.com', full_name: 'Already Here', invite_to_chat: true, chat_channel_ids: ['C0ONE'] });
      assert.equal(res.statusCode, 201);
      const invite = res.json<AddMemberResponse>().data.chat_invite;
      assert.equal(invite?.status, 'already_in_workspace');
      assert.equal(invite?.code, 'already_in_team');
      assert.equal(fake.invitations.length, 0);
    });

    it('reports a refused invitation as failed with the chat code, and keeps the member', async () => {
      const t = ctx();
      const { auth } = await connectedCommunity();
      const email = uniqueEmail();
      const res = await postMember(t, auth, { email, full_name: 'Bad Channel', invite_to_chat: true, chat_channel_ids: ['general'] });
      assert.equal(res.statusCode, 201);
      const invite = res.json<AddMemberResponse>().data.chat_invite;
      assert.equal(invite?.status, 'failed');
      assert.equal(invite?.code, 'failed_to_validate_channels');
      assert.deepEqual(invite?.channel_ids, ['general']);
      assert.equal((await checkMember(t, auth, email)).is_member, true);
    });

    it('reports a chat platform error as failed without undoing the member', async () => {
      const t = ctx();
      const { auth } = await connectedCommunity();
      fake.setBehaviour('admin.users.invite', { error: 'internal_error' });
      const email = uniqueEmail();
      const res = await postMember(t, auth, { email, full_name: 'Err Or', invite_to_chat: true, chat_channel_ids: ['C0ONE'] });
      assert.equal(res.statusCode, 201);
      assert.equal(res.json<AddMemberResponse>().data.chat_invite?.code, 'internal_error');
      assert.equal(res.json<AddMemberResponse>().data.chat_invite?.status, 'failed');
      assert.equal((await checkMember(t, auth, email)).is_member, true);
    });

    it('reports rate limiting as failed / rate_limited at once', async () => {
      const t = ctx();
      const { auth } = await connectedCommunity();
      fake.setBehaviour('admin.users.invite', { rateLimited: 30 });
      const res = await postMember(t, auth, { email: uniqueEmail(), full_name: 'Slow Down', invite_to_chat: true, chat_channel_ids: ['C0ONE'] });
      assert.equal(res.statusCode, 201);
      assert.deepEqual(
        { status: res.json<AddMemberResponse>().data.chat_invite?.status, code: res.json<AddMemberResponse>().data.chat_invite?.code },
        { status: 'failed', code: 'rate_limited' },
      );
    });

    it('reports a chat platform that does not answer as failed / timeout within the deadline, keeping the member', async () => {
      const t = ctx();
      const { auth } = await connectedCommunity();
      fake.setBehaviour('admin.users.invite', { delayMs: 3000 });
      const email = uniqueEmail();
      const started = Date.now();
      const res = await postMember(t, auth, { email, full_name: 'Tim Eout', invite_to_chat: true, chat_channel_ids: ['C0ONE'] });
      assert.ok(Date.now() - started < 2500, 'answered within the chat deadline');
      assert.equal(res.statusCode, 201);
      assert.equal(res.json<AddMemberResponse>().data.chat_invite?.status, 'failed');
      assert.equal(res.json<AddMemberResponse>().data.chat_invite?.code, 'timeout');
      assert.equal((await checkMember(t, auth, email)).is_member, true);
    });

    it('accepts the invitation fields form-encoded (repeated keys, single key, true as text)', async () => {
      const t = ctx();
      const { auth } = await connectedCommunity();
      const many = await postMemberForm(t, auth, { email: uniqueEmail(), full_name: 'Form Many', invite_to_chat: 'true', chat_channel_ids: ['C0ONE', 'C0TWO'] });
      assert.equal(many.statusCode, 201, many.body);
      assert.deepEqual(many.json<AddMemberResponse>().data.chat_invite?.channel_ids, ['C0ONE', 'C0TWO']);
      const one = await postMemberForm(t, auth, { email: uniqueEmail(), full_name: 'Form One', invite_to_chat: 'true', chat_channel_ids: 'C0ONE' });
      assert.equal(one.statusCode, 201, one.body);
      assert.deepEqual(one.json<AddMemberResponse>().data.chat_invite?.channel_ids, ['C0ONE']);
    });

    it('reactivates a deactivated member and invites it', async () => {
      const t = ctx();
      const { auth } = await connectedCommunity();
      const email = uniqueEmail();
      const id = (await postMember(t, auth, { email, full_name: 'Come Back' })).json<AddMemberResponse>().data.member.id;
      await t.request({ method: 'POST', url: `/admin/v0/members/${id}/deactivate`, headers: auth });
      const res = await postMember(t, auth, { email, full_name: 'Come Back', invite_to_chat: true, chat_channel_ids: ['C0ONE'] });
      assert.equal(res.statusCode, 200);
      assert.equal(res.json<AddMemberResponse>().data.chat_invite?.status, 'invited');
      assert.equal((await checkMember(t, auth, email)).is_deactivated, false);
    });
  },
  fakeChatOptions(fake),
);

describeEachEngine(
  'POST /admin/v0/members: pending chat invitations',
  (ctx) => {
    beforeEach(() => fake.reset());

    async function connectedCommunity() {
      const t = ctx();
      const community = await t.community();
      await connectToFake(t, fake, community.id);
      return community;
    }

    it('adopts the member of a pending invitation: 200, same member, already_in_workspace, no second invitation', async () => {
      const t = ctx();
      const { auth } = await connectedCommunity();
      const first = await postMember(t, auth, { email: 'pend@example.com', full_name: 'Pen Ding', invite_to_chat: true, chat_channel_ids: ['C0ONE'] });
      assert.equal(first.json<AddMemberResponse>().data.chat_invite?.status, 'invited');
      const callsBefore = inviteCalls().length;

      const second = await postMember(t, auth, { email: 'PEND@example.com', full_name: 'Pen Ding', invite_to_chat: true, chat_channel_ids: ['C0TWO'] });
      assert.equal(second.statusCode, 200);
      const body = second.json<AddMemberResponse>();
      assert.equal(body.data.member.id, first.json<AddMemberResponse>().data.member.id);
      assert.equal(body.data.chat_invite?.status, 'already_in_workspace');
      assert.equal(body.data.chat_invite?.code, 'already_in_team_invited_user');
      assert.deepEqual(body.data.chat_invite?.channel_ids, ['C0ONE']);
      assert.equal(inviteCalls().length, callsBefore, 'no second call to the chat platform');
      assert.equal(fake.invitations.length, 1);
    });

    it('adopts the profile a pending invitation holds, found through its email', async () => {
      const t = ctx();
      const { auth, id: communityId } = await connectedCommunity();
      const profileId = newId();
      await importInto(t, communityId, { profiles: [{ profile_id: profileId, email: 'held@example.com', first_name: 'Held' }] });
      const first = await postMember(t, auth, { email: 'held@example.com', full_name: 'Held Profile', invite_to_chat: true, chat_channel_ids: ['C0ONE'] });
      assert.equal(first.json<AddMemberResponse>().data.chat_invite?.status, 'invited');
      // The profile's email changes; the invitation still holds the profile.
      await importInto(t, communityId, { profiles: [{ profile_id: profileId, email: 'held.new@example.com', first_name: 'Held' }] });
      const second = await postMember(t, auth, { email: 'held.new@example.com', full_name: 'Held Profile', invite_to_chat: true, chat_channel_ids: ['C0ONE'] });
      assert.equal(second.statusCode, 201);
      assert.equal(second.json<AddMemberResponse>().data.chat_invite?.status, 'already_in_workspace');
      assert.equal(fake.invitations.length, 1);
    });

    it('sends the requested invitation as usual once the pending one was cancelled', async () => {
      const t = ctx();
      const { auth, id: communityId } = await connectedCommunity();
      const email = uniqueEmail('cancel');
      await postMember(t, auth, { email, full_name: 'Can Celled', invite_to_chat: true, chat_channel_ids: ['C0ONE'] });
      assert.equal(fake.invitations.length, 1);
      fake.reset(); // the workspace admin revoked the invitation in the chat platform
      const cancelled = await cancelChatInvitations(t.database, t.clock, communityId, email.toUpperCase());
      assert.equal(cancelled.cancelled, 1);

      const again = await postMember(t, auth, { email, full_name: 'Can Celled', invite_to_chat: true, chat_channel_ids: ['C0TWO'] });
      assert.equal(again.statusCode, 200);
      const invite = again.json<AddMemberResponse>().data.chat_invite;
      assert.equal(invite?.status, 'invited');
      assert.deepEqual(invite?.channel_ids, ['C0TWO']);
      assert.equal(fake.invitations.length, 1);
    });

    it('sends no invitation while a pending one is outstanding, even without a chat_channel_ids change', async () => {
      const t = ctx();
      const { auth } = await connectedCommunity();
      const email = uniqueEmail();
      await postMember(t, auth, { email, full_name: 'Out Standing', invite_to_chat: true });
      for (let i = 0; i < 3; i++) {
        const res = await postMember(t, auth, { email, full_name: 'Out Standing', invite_to_chat: true });
        assert.equal(res.json<AddMemberResponse>().data.chat_invite?.status, 'already_in_workspace');
      }
      assert.equal(inviteCalls().length, 1);
    });

    it('remembers an invitation sent outside the service that the chat platform reports as outstanding', async () => {
      const t = ctx();
      const { auth } = await connectedCommunity();
      const email = uniqueEmail('outside');
      const admin = createSlackWorkspace({ token: fake.validToken, apiUrl: fake.url, timeoutMs: 2000 });
      assert.equal((await admin.inviteUser({ email, channelIds: ['C0ONE'] })).status, 'invited');
      const first = await postMember(t, auth, { email, full_name: 'Else Invited', invite_to_chat: true, chat_channel_ids: ['C0ONE'] });
      assert.equal(first.json<AddMemberResponse>().data.chat_invite?.code, 'already_in_team_invited_user');
      const calls = inviteCalls().length;
      const second = await postMember(t, auth, { email, full_name: 'Else Invited', invite_to_chat: true, chat_channel_ids: ['C0ONE'] });
      assert.equal(second.json<AddMemberResponse>().data.chat_invite?.status, 'already_in_workspace');
      assert.equal(inviteCalls().length, calls);
    });

    it('treats the invitation as accepted once the email has a chat profile: asks the platform and links the member', async () => {
      const t = ctx();
      const { auth, id: communityId } = await connectedCommunity();
      const email = uniqueEmail('joined');
      await postMember(t, auth, { email, full_name: 'Now Joined', invite_to_chat: true, chat_channel_ids: ['C0ONE'] });
      const profileId = newId();
      await importInto(t, communityId, { profiles: [{ profile_id: profileId, email, chat_user_id: 'U0JOINED' }] });
      fake.addUser({ email, real_name: 'Now Joined' });
      const calls = inviteCalls().length;
      const res = await postMember(t, auth, { email, full_name: 'Now Joined', invite_to_chat: true, chat_channel_ids: ['C0ONE'] });
      assert.equal(res.json<AddMemberResponse>().data.member.chat_profile_id, profileId);
      assert.equal(res.json<AddMemberResponse>().data.chat_invite?.code, 'already_in_team');
      assert.equal(inviteCalls().length, calls + 1);
    });

    it('does not let a pending invitation of another community block this one', async () => {
      const t = ctx();
      const a = await connectedCommunity();
      const b = await connectedCommunity();
      await postMember(t, a.auth, { email: 'both@example.com', full_name: 'Both Places', invite_to_chat: true, chat_channel_ids: ['C0ONE'] });
      fake.reset();
      const res = await postMember(t, b.auth, { email: 'both@example.com', full_name: 'Both Places', invite_to_chat: true, chat_channel_ids: ['C0ONE'] });
      assert.equal(res.json<AddMemberResponse>().data.chat_invite?.status, 'invited');
    });

    it('says nothing about invitations when the add does not ask for one', async () => {
      const t = ctx();
      const { auth } = await connectedCommunity();
      const email = uniqueEmail();
      await postMember(t, auth, { email, full_name: 'No Ask', invite_to_chat: true, chat_channel_ids: ['C0ONE'] });
      const res = await postMember(t, auth, { email, full_name: 'No Ask' });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(Object.keys(res.json<AddMemberResponse>().data), ['member']);
    });
  },
  fakeChatOptions(fake),
);
