import assert from 'node:assert/strict';
import { after, beforeEach, it } from 'node:test';
import { createSlackWorkspace } from '../../../src/chat/index.js';
import { cancelChatInvitations } from '../../../src/modules/members/members.commands.js';
import { durationMs } from '../../../src/shared/time.js';
import { startFakeChatServer } from '../../support/fake-chat-server.js';
import { describeEachEngine } from '../../support/harness.js';
import { type AddMemberResponse, connectToFake, fakeChatOptions, importInto, newId, postMember, uniqueEmail } from './members-support.js';

const fake = await startFakeChatServer();
after(() => fake.close());

const inviteCalls = () => fake.calls.filter((c) => c.method === 'admin.users.invite');

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
      const first = await postMember(t, auth, {
        email: 'pend@example.com',
        full_name: 'Pen Ding',
        invite_to_chat: true,
        chat_channel_ids: ['C0ONE'],
      });
      assert.equal(first.json<AddMemberResponse>().data.chat_invite?.status, 'invited');
      const callsBefore = inviteCalls().length;

      const second = await postMember(t, auth, {
        email: 'PEND@example.com',
        full_name: 'Pen Ding',
        invite_to_chat: true,
        chat_channel_ids: ['C0TWO'],
      });
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
      const first = await postMember(t, auth, {
        email: 'held@example.com',
        full_name: 'Held Profile',
        invite_to_chat: true,
        chat_channel_ids: ['C0ONE'],
      });
      assert.equal(first.json<AddMemberResponse>().data.chat_invite?.status, 'invited');
      // The profile's email changes; the invitation still holds the profile.
      await importInto(t, communityId, { profiles: [{ profile_id: profileId, email: 'held.new@example.com', first_name: 'Held' }] });
      const second = await postMember(t, auth, {
        email: 'held.new@example.com',
        full_name: 'Held Profile',
        invite_to_chat: true,
        chat_channel_ids: ['C0ONE'],
      });
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
      const cancelled = await cancelChatInvitations({ database: t.database, clock: t.clock, communityId }, email.toUpperCase());
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
      const admin = createSlackWorkspace({ token: fake.validToken, apiUrl: fake.url, timeoutMs: durationMs(2000) });
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
      await postMember(t, a.auth, {
        email: 'both@example.com',
        full_name: 'Both Places',
        invite_to_chat: true,
        chat_channel_ids: ['C0ONE'],
      });
      fake.reset();
      const res = await postMember(t, b.auth, {
        email: 'both@example.com',
        full_name: 'Both Places',
        invite_to_chat: true,
        chat_channel_ids: ['C0ONE'],
      });
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
