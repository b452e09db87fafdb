import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachEngine, type TestApp } from '../../support/harness.js';
import {
  type AddMemberResponse,
  checkMember,
  type ErrorResponse,
  formBody,
  importInto,
  newId,
  postMember,
  uniqueEmail,
} from './members-support.js';

interface DeactivateResponse {
  success: boolean;
  message: string;
  data: { member: AddMemberResponse['data']['member']; already_deactivated: boolean };
}

const deactivate = (t: TestApp, auth: { authorization: string }, id: string) =>
  t.request({ method: 'POST', url: `/admin/v0/members/${encodeURIComponent(id)}/deactivate`, headers: auth });

describeEachEngine('POST /admin/v0/members/check', (ctx) => {
  it('answers all three flags false for an unknown email', async () => {
    const t = ctx();
    const { auth } = await t.community();
    const res = await t.request({
      method: 'POST',
      url: '/admin/v0/members/check',
      headers: auth,
      payload: { email: 'nobody@example.com' },
    });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { success: true, data: { is_member: false, is_deactivated: false, is_forgotten: false } });
  });

  it('reports each member state: active, deactivated, forgotten', async () => {
    const t = ctx();
    const { auth, id: communityId } = await t.community();
    await importInto(t, communityId, {
      members: [
        { id: newId(), email: 'on@example.com', full_name: 'On Member', state: 'active' },
        { id: newId(), email: 'off@example.com', full_name: 'Off Member', state: 'deactivated' },
        { id: newId(), email: 'erased@example.com', full_name: 'Erased Member', state: 'forgotten' },
      ],
    });
    assert.deepEqual(await checkMember(t, auth, 'on@example.com'), { is_member: true, is_deactivated: false, is_forgotten: false });
    assert.deepEqual(await checkMember(t, auth, 'off@example.com'), { is_member: true, is_deactivated: true, is_forgotten: false });
    assert.deepEqual(await checkMember(t, auth, 'erased@example.com'), { is_member: true, is_deactivated: false, is_forgotten: true });
  });

  it('matches emails after trimming, in any letter case', async () => {
    const t = ctx();
    const { auth } = await t.community();
    await postMember(t, auth, { email: 'Case@Example.com', full_name: 'Case Matters' });
    assert.equal((await checkMember(t, auth, '  CASE@example.COM  ')).is_member, true);
  });

  it('never fails for text that is not an address: it is simply not a member', async () => {
    const t = ctx();
    const { auth } = await t.community();
    assert.deepEqual(await checkMember(t, auth, 'not an email'), { is_member: false, is_deactivated: false, is_forgotten: false });
  });

  it('accepts a form-encoded body', async () => {
    const t = ctx();
    const { auth } = await t.community();
    await postMember(t, auth, { email: 'formcheck@example.com', full_name: 'Form Check' });
    const res = await t.request({
      method: 'POST',
      url: '/admin/v0/members/check',
      headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
      payload: formBody({ email: 'FormCheck@example.com' }),
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json<{ data: { is_member: boolean } }>().data.is_member, true);
  });

  it('answers 400 for a missing, empty or 255-character email and for unknown fields', async () => {
    const t = ctx();
    const { auth } = await t.community();
    for (const payload of [
      {},
      { email: '' },
      { email: `${'a'.repeat(243)}@example.com` },
      { email: 'a@example.com', extra: 1 },
      { email: 5 },
    ]) {
      const res = await t.request({ method: 'POST', url: '/admin/v0/members/check', headers: auth, payload });
      assert.equal(res.statusCode, 400, JSON.stringify(payload));
      assert.equal(res.json<ErrorResponse>().error.code, 'validation_failed');
    }
  });

  it('is open to every plan and sees only the caller community', async () => {
    const t = ctx();
    const a = await t.community('enterprise');
    const free = await t.community('free');
    await postMember(t, a.auth, { email: 'only.a@example.com', full_name: 'Only A' });
    assert.equal((await checkMember(t, free.auth, 'only.a@example.com')).is_member, false);
    assert.equal((await checkMember(t, a.auth, 'only.a@example.com')).is_member, true);
  });
});

describeEachEngine('POST /admin/v0/members/{member_id}/deactivate', (ctx) => {
  it('deactivates an active member: 200, already_deactivated false, and the check says so', async () => {
    const t = ctx();
    const { auth } = await t.community();
    const email = uniqueEmail();
    const member = (await postMember(t, auth, { email, full_name: 'Soon Off' })).json<AddMemberResponse>().data.member;
    const res = await deactivate(t, auth, member.id);
    assert.equal(res.statusCode, 200);
    const body = res.json<DeactivateResponse>();
    assert.equal(body.success, true);
    assert.match(body.message, /deactivated/i);
    assert.deepEqual(body.data, { member, already_deactivated: false });
    assert.deepEqual(await checkMember(t, auth, email), { is_member: true, is_deactivated: true, is_forgotten: false });
  });

  it('answers 200 with already_deactivated true the second time', async () => {
    const t = ctx();
    const { auth } = await t.community();
    const member = (await postMember(t, auth, { email: uniqueEmail(), full_name: 'Twice Off' })).json<AddMemberResponse>().data.member;
    await deactivate(t, auth, member.id);
    const res = await deactivate(t, auth, member.id);
    assert.equal(res.statusCode, 200);
    assert.equal(res.json<DeactivateResponse>().data.already_deactivated, true);
    assert.match(res.json<DeactivateResponse>().message, /already/i);
  });

  it('reports exactly one change out of concurrent deactivations', async () => {
    const t = ctx();
    const { auth } = await t.community();
    const member = (await postMember(t, auth, { email: uniqueEmail(), full_name: 'Race Off' })).json<AddMemberResponse>().data.member;
    const results = await Promise.all(Array.from({ length: 5 }, () => deactivate(t, auth, member.id)));
    assert.deepEqual(
      results.map((r) => r.statusCode),
      [200, 200, 200, 200, 200],
    );
    assert.equal(results.filter((r) => !r.json<DeactivateResponse>().data.already_deactivated).length, 1);
  });

  it('answers 409 member_has_chat_profile for a member linked to a chat profile, and changes nothing', async () => {
    const t = ctx();
    const { auth, id: communityId } = await t.community();
    await importInto(t, communityId, { profiles: [{ profile_id: newId(), email: 'linked@example.com', chat_user_id: 'U0LINKED' }] });
    const member = (await postMember(t, auth, { email: 'linked@example.com', full_name: 'Linked Up' })).json<AddMemberResponse>().data
      .member;
    assert.ok(member.chat_profile_id);
    const res = await deactivate(t, auth, member.id);
    assert.equal(res.statusCode, 409);
    assert.equal(res.json<ErrorResponse>().error.code, 'member_has_chat_profile');
    assert.equal((await checkMember(t, auth, 'linked@example.com')).is_deactivated, false);
  });

  it('answers 404 for an unknown id, a non-UUID id, and a member of another community', async () => {
    const t = ctx();
    const a = await t.community();
    const b = await t.community();
    const member = (await postMember(t, a.auth, { email: uniqueEmail(), full_name: 'Elsewhere Member' })).json<AddMemberResponse>().data
      .member;
    for (const id of [newId(), 'not-a-uuid', member.id]) {
      const res = await deactivate(t, b.auth, id);
      assert.equal(res.statusCode, 404, id);
      assert.equal(res.json<ErrorResponse>().error.code, 'not_found');
    }
    assert.equal((await checkMember(t, a.auth, member.email)).is_deactivated, false);
  });

  it('finds the member by its id in upper case', async () => {
    const t = ctx();
    const { auth } = await t.community();
    const member = (await postMember(t, auth, { email: uniqueEmail(), full_name: 'Upper Case' })).json<AddMemberResponse>().data.member;
    const res = await deactivate(t, auth, member.id.toUpperCase());
    assert.equal(res.statusCode, 200);
    assert.equal(res.json<DeactivateResponse>().data.member.id, member.id);
  });

  it('leaves a forgotten member forgotten and reports it as already deactivated', async () => {
    const t = ctx();
    const { auth, id: communityId } = await t.community();
    const id = newId();
    await importInto(t, communityId, { members: [{ id, email: 'forgot@example.com', full_name: 'For Gotten', state: 'forgotten' }] });
    const res = await deactivate(t, auth, id);
    assert.equal(res.statusCode, 200);
    assert.equal(res.json<DeactivateResponse>().data.already_deactivated, true);
    assert.deepEqual(await checkMember(t, auth, 'forgot@example.com'), { is_member: true, is_deactivated: false, is_forgotten: true });
  });

  it('answers 403 plan_required below Enterprise and leaves the member active', async () => {
    const t = ctx();
    const { auth, id: communityId } = await t.community('momentum');
    const id = newId();
    await importInto(t, communityId, { members: [{ id, email: 'mom@example.com', full_name: 'Mo Mentum' }] });
    const res = await deactivate(t, auth, id);
    assert.equal(res.statusCode, 403);
    assert.equal(res.json<ErrorResponse>().error.code, 'plan_required');
    assert.equal((await checkMember(t, auth, 'mom@example.com')).is_deactivated, false);
  });
});
