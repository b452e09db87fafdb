import assert from 'node:assert/strict';
import { after, beforeEach, it } from 'node:test';
import { startFakeChatServer } from '../../support/fake-chat-server.js';
import { describeEachEngine } from '../../support/harness.js';
import {
  type AddMemberResponse,
  checkMember,
  connectToFake,
  type ErrorResponse,
  fakeChatOptions,
  postMember,
  postMemberForm,
  uniqueEmail,
} from './members-support.js';

const fake = await startFakeChatServer();
after(() => fake.close());

const inviteCalls = () => fake.calls.filter((c) => c.method === 'admin.users.invite');
// By email: the timeout test's delayed answer still lands in the fake later (after a reset).
const invitationsOf = (email: string) => fake.invitations.filter((i) => i.email === email);

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
      const res = await postMember(t, auth, {
        email: 'Ivy@Example.com',
        full_name: 'Ivy Invitee',
        invite_to_chat: true,
        chat_channel_ids: ['C0ONE', 'C0TWO'],
      });
      assert.equal(res.statusCode, 201);
      const body = res.json<AddMemberResponse>();
      assert.deepEqual(Object.keys(body.data).sort(), ['chat_invite', 'member']);
      const invite = body.data.chat_invite;
      assert.ok(invite);
      assert.equal(invite.status, 'invited');
      assert.equal(invite.code, 'ok');
      assert.deepEqual(invite.channel_ids, ['C0ONE', 'C0TWO']);
      assert.ok(invite.detail.length > 0);
      assert.deepEqual(invitationsOf('ivy@example.com'), [
        { email: 'ivy@example.com', channel_ids: ['C0ONE', 'C0TWO'], real_name: 'Ivy Invitee' },
      ]);
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
      const res = await postMember(t, auth, {
        email: uniqueEmail(),
        full_name: 'Many Rooms',
        invite_to_chat: true,
        chat_channel_ids: channels,
      });
      assert.equal(res.statusCode, 201, res.body);
      assert.deepEqual(res.json<AddMemberResponse>().data.chat_invite?.channel_ids, channels);
    });

    it('reports a user already in the workspace as already_in_workspace and still creates the member', async () => {
      const t = ctx();
      const { auth } = await connectedCommunity();
      fake.addUser({ email: 'here@example.com', real_name: 'Already Here' });
      const res = await postMember(t, auth, {
        email: 'here@example.com',
        full_name: 'Already Here',
        invite_to_chat: true,
        chat_channel_ids: ['C0ONE'],
      });
      assert.equal(res.statusCode, 201);
      const invite = res.json<AddMemberResponse>().data.chat_invite;
      assert.equal(invite?.status, 'already_in_workspace');
      assert.equal(invite?.code, 'already_in_team');
      assert.deepEqual(invitationsOf('here@example.com'), []);
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
      const res = await postMember(t, auth, {
        email: uniqueEmail(),
        full_name: 'Slow Down',
        invite_to_chat: true,
        chat_channel_ids: ['C0ONE'],
      });
      assert.equal(res.statusCode, 201);
      assert.deepEqual(
        { status: res.json<AddMemberResponse>().data.chat_invite?.status, code: res.json<AddMemberResponse>().data.chat_invite?.code },
        { status: 'failed', code: 'rate_limited' },
      );
    });

    it('reports a chat platform that does not answer as failed / timeout within the deadline, keeping the member', async () => {
      const t = ctx();
      const { auth } = await connectedCommunity();
      fake.setBehaviour('admin.users.invite', { delayMs: 1500 });
      const email = uniqueEmail();
      const started = Date.now();
      const res = await postMember(t, auth, { email, full_name: 'Tim Eout', invite_to_chat: true, chat_channel_ids: ['C0ONE'] });
      assert.ok(Date.now() - started < 1450, 'answered within the chat deadline');
      assert.equal(res.statusCode, 201);
      assert.equal(res.json<AddMemberResponse>().data.chat_invite?.status, 'failed');
      assert.equal(res.json<AddMemberResponse>().data.chat_invite?.code, 'timeout');
      assert.equal((await checkMember(t, auth, email)).is_member, true);
    });

    it('accepts the invitation fields form-encoded (repeated keys, single key, true as text)', async () => {
      const t = ctx();
      const { auth } = await connectedCommunity();
      const many = await postMemberForm(t, auth, {
        email: uniqueEmail(),
        full_name: 'Form Many',
        invite_to_chat: 'true',
        chat_channel_ids: ['C0ONE', 'C0TWO'],
      });
      assert.equal(many.statusCode, 201, many.body);
      assert.deepEqual(many.json<AddMemberResponse>().data.chat_invite?.channel_ids, ['C0ONE', 'C0TWO']);
      const one = await postMemberForm(t, auth, {
        email: uniqueEmail(),
        full_name: 'Form One',
        invite_to_chat: 'true',
        chat_channel_ids: 'C0ONE',
      });
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
