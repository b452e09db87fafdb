import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it } from 'node:test';
import { runImport } from '../../../src/import/run-import.js';
import { describeEachEngine, type TestApp } from '../../support/harness.js';

interface ErrorResponse {
  success: false;
  error: { code: string; message: string; hint: string };
}

const addToGroup = (t: TestApp, auth: { authorization: string }, groupId: string, payload: unknown) =>
  t.request({
    method: 'POST',
    url: `/admin/v0/groups/${encodeURIComponent(groupId)}/members`,
    headers: auth,
    payload: payload as Record<string, unknown>,
  });

/** A community with one group and three profiles: one with a chat identity, one without, one already in the group. */
async function seeded(t: TestApp, plan = 'free') {
  const community = await t.community(plan);
  const ids = { chat: randomUUID(), site: randomUUID(), inGroup: randomUUID() };
  await runImport(
    { database: t.database, clock: t.clock, communityId: community.id },
    {
      profiles: [
        { profile_id: ids.chat, email: 'chat.user@example.com', chat_user_id: 'U0CHAT' },
        { profile_id: ids.site, email: 'Site.User@Example.com' },
        { profile_id: ids.inGroup, email: 'in.group@example.com', chat_user_id: 'U0INGROUP' },
      ],
      groups: [{ id: 'grp-design', name: 'Design', member_profile_ids: [ids.inGroup] }],
    },
  );
  return { ...community, ids, groupId: 'grp-design' };
}

describeEachEngine('POST /admin/v0/groups/{group_id}/members', (ctx) => {
  it('adds a user named by chat_user_id: 200 with just success', async () => {
    const t = ctx();
    const c = await seeded(t);
    const res = await addToGroup(t, c.auth, c.groupId, { user: { chat_user_id: 'U0CHAT' } });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { success: true });
  });

  it('answers 200 with a message saying so when the user already is a member, and changes nothing', async () => {
    const t = ctx();
    const c = await seeded(t);
    const res = await addToGroup(t, c.auth, c.groupId, { user: { profile_id: c.ids.inGroup } });
    assert.equal(res.statusCode, 200);
    const body = res.json<{ success: boolean; message: string }>();
    assert.equal(body.success, true);
    assert.match(body.message, /already a member/i);
    const rows = await t.database.db.selectFrom('group_members').select('profile_id').where('community_id', '=', c.id).execute();
    assert.deepEqual(rows, [{ profile_id: c.ids.inGroup }]);
  });

  it('adds a user named by email (trimmed, any case), then reports them as already a member', async () => {
    const t = ctx();
    const c = await seeded(t);
    const first = await addToGroup(t, c.auth, c.groupId, { user: { email: '  SITE.user@example.COM ' } });
    assert.deepEqual(first.json(), { success: true });
    const second = await addToGroup(t, c.auth, c.groupId, { user: { profile_id: c.ids.site } });
    assert.match(second.json<{ message: string }>().message, /already/i);
  });

  it('adds a user named by profile_id in any letter case', async () => {
    const t = ctx();
    const c = await seeded(t);
    const res = await addToGroup(t, c.auth, c.groupId, { user: { profile_id: c.ids.chat.toUpperCase() } });
    assert.deepEqual(res.json(), { success: true });
    const again = await addToGroup(t, c.auth, c.groupId, { user: { chat_user_id: 'U0CHAT' } });
    assert.ok(again.json<{ message?: string }>().message);
  });

  it('adds exactly one membership out of concurrent adds of one user', async () => {
    const t = ctx();
    const c = await seeded(t);
    const results = await Promise.all(
      Array.from({ length: 6 }, () => addToGroup(t, c.auth, c.groupId, { user: { chat_user_id: 'U0CHAT' } })),
    );
    assert.ok(results.every((r) => r.statusCode === 200));
    assert.equal(results.filter((r) => r.json<{ message?: string }>().message === undefined).length, 1);
  });

  const badUsers: { name: string; payload: unknown; field?: RegExp }[] = [
    {
      name: 'no identifier',
      payload: { user: {} },
      field: /^body\.user: must hold exactly one of chat_user_id, email, profile_id \(none was given\)$/,
    },
    {
      name: 'two identifiers',
      payload: { user: { chat_user_id: 'U0CHAT', email: 'chat.user@example.com' } },
      field: /^body\.user: must hold exactly one of chat_user_id, email, profile_id \(got chat_user_id and email\)$/,
    },
    { name: 'a blank email', payload: { user: { email: '   ' } }, field: /^body\.user\.email: must not be blank$/ },
    { name: 'three identifiers', payload: { user: { chat_user_id: 'U0CHAT', email: 'chat.user@example.com', profile_id: 'x' } } },
    { name: 'an unknown identifier', payload: { user: { slack_id: 'U0CHAT' } } },
    { name: 'a number', payload: { user: { chat_user_id: 42 } } },
    { name: 'an empty string', payload: { user: { email: '' } } },
    { name: 'a user that is not an object', payload: { user: 'U0CHAT' } },
    { name: 'no user', payload: {} },
    { name: 'an extra top-level field', payload: { user: { chat_user_id: 'U0CHAT' }, role: 'admin' }, field: /role/ },
  ];
  for (const { name, payload, field = /user/ } of badUsers) {
    it(`answers 400 validation_failed for ${name}`, async () => {
      const t = ctx();
      const c = await seeded(t);
      const res = await addToGroup(t, c.auth, c.groupId, payload);
      assert.equal(res.statusCode, 400, res.body);
      const body = res.json<ErrorResponse>();
      assert.equal(body.error.code, 'validation_failed');
      assert.match(body.error.message, field);
    });
  }

  it('answers 404 for an unknown group', async () => {
    const t = ctx();
    const c = await seeded(t);
    const res = await addToGroup(t, c.auth, 'no-such-group', { user: { chat_user_id: 'U0CHAT' } });
    assert.equal(res.statusCode, 404);
    assert.equal(res.json<ErrorResponse>().error.code, 'not_found');
    assert.match(res.json<ErrorResponse>().error.message, /group/i);
  });

  it('answers 404 for an unknown user of each kind', async () => {
    const t = ctx();
    const c = await seeded(t);
    for (const user of [
      { chat_user_id: 'U0NOBODY' },
      { email: 'nobody@example.com' },
      { profile_id: randomUUID() },
      { profile_id: 'not-a-uuid' },
    ]) {
      const res = await addToGroup(t, c.auth, c.groupId, { user });
      assert.equal(res.statusCode, 404, JSON.stringify(user));
      assert.match(res.json<ErrorResponse>().error.message, /user/i);
    }
  });

  it("answers 404 for another community's group and for another community's profile", async () => {
    const t = ctx();
    const a = await seeded(t);
    const b = await seeded(t);
    const foreignGroup = await addToGroup(t, b.auth, a.groupId.replace('design', 'x'), { user: { chat_user_id: 'U0CHAT' } });
    assert.equal(foreignGroup.statusCode, 404);
    await runImport({ database: t.database, clock: t.clock, communityId: a.id }, { groups: [{ id: 'only-in-a', name: 'Only A' }] });
    const groupOfA = await addToGroup(t, b.auth, 'only-in-a', { user: { chat_user_id: 'U0CHAT' } });
    assert.equal(groupOfA.statusCode, 404);
    const profileOfA = await addToGroup(t, b.auth, b.groupId, { user: { profile_id: a.ids.chat } });
    assert.equal(profileOfA.statusCode, 404);
  });

  it('requires application/json: a form body or none is a 415', async () => {
    const t = ctx();
    const c = await seeded(t);
    const form = await t.request({
      method: 'POST',
      url: `/admin/v0/groups/${c.groupId}/members`,
      headers: { ...c.auth, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'user[chat_user_id]=U0CHAT',
    });
    assert.equal(form.statusCode, 415);
    const none = await t.request({ method: 'POST', url: `/admin/v0/groups/${c.groupId}/members`, headers: c.auth });
    assert.equal(none.statusCode, 415);
  });

  it('answers 400 invalid_json for malformed JSON', async () => {
    const t = ctx();
    const c = await seeded(t);
    const res = await t.request({
      method: 'POST',
      url: `/admin/v0/groups/${c.groupId}/members`,
      headers: { ...c.auth, 'content-type': 'application/json' },
      payload: '{"user":',
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json<ErrorResponse>().error.code, 'invalid_json');
  });

  it('answers 401 without a key', async () => {
    const t = ctx();
    const c = await seeded(t);
    const res = await addToGroup(t, { authorization: '' }, c.groupId, { user: { chat_user_id: 'U0CHAT' } });
    assert.equal(res.statusCode, 401);
  });
});
