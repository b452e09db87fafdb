import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachEngine } from '../../support/harness.js';
import {
  type AddMemberResponse,
  checkMember,
  type ErrorResponse,
  importInto,
  newId,
  postMember,
  postMemberForm,
  storedMember,
  uniqueEmail,
} from './members-support.js';

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describeEachEngine('POST /admin/v0/members: create, update, link', (ctx) => {
  it('creates a new member with 201, a message and exactly the member fields', async () => {
    const t = ctx();
    const { auth } = await t.community();
    const res = await postMember(t, auth, { email: 'ada@example.com', full_name: 'Ada Lovelace' });
    assert.equal(res.statusCode, 201);
    const body = res.json<AddMemberResponse>();
    assert.equal(body.success, true);
    assert.match(body.message, /created/i);
    assert.deepEqual(Object.keys(body.data), ['member']);
    const { id, ...rest } = body.data.member;
    assert.match(id, uuid);
    assert.deepEqual(rest, {
      email: 'ada@example.com',
      full_name: 'Ada Lovelace',
      preferred_name: 'Ada',
      avatar_url_original: null,
      chat_profile_id: null,
    });
  });

  it('uses the first word as preferred_name, and a single word as the whole first name', async () => {
    const t = ctx();
    const { auth } = await t.community();
    const two = await postMember(t, auth, { email: uniqueEmail(), full_name: 'Grace Brewster Hopper' });
    assert.equal(two.json<AddMemberResponse>().data.member.preferred_name, 'Grace');
    const one = await postMember(t, auth, { email: uniqueEmail(), full_name: 'Cher' });
    assert.equal(one.json<AddMemberResponse>().data.member.preferred_name, 'Cher');
  });

  it('trims the email and name and matches emails case-insensitively: the second add updates the same member (200)', async () => {
    const t = ctx();
    const { auth, id: communityId } = await t.community();
    const first = await postMember(t, auth, { email: '  Lin.Ma@Example.COM ', full_name: '  Lin Ma ' });
    assert.equal(first.statusCode, 201);
    const created = first.json<AddMemberResponse>().data.member;
    assert.equal(created.email, 'Lin.Ma@Example.COM');
    assert.equal(created.full_name, 'Lin Ma');

    const second = await postMember(t, auth, { email: 'lin.ma@example.com', full_name: 'Lin Ma-Chen' });
    assert.equal(second.statusCode, 200);
    const body = second.json<AddMemberResponse>();
    assert.equal(body.success, true);
    assert.match(body.message, /updated/i);
    assert.equal(body.data.member.id, created.id);
    assert.equal(body.data.member.full_name, 'Lin Ma-Chen');
    assert.equal((await storedMember(t, communityId, created.id))?.full_name, 'Lin Ma-Chen');
    assert.deepEqual(await checkMember(t, auth, 'LIN.MA@example.com'), { is_member: true, is_deactivated: false, is_forgotten: false });
  });

  it('keeps the avatar when the update omits it, replaces it when given, clears it with null', async () => {
    const t = ctx();
    const { auth } = await t.community();
    const email = uniqueEmail();
    await postMember(t, auth, { email, full_name: 'A B', avatar_url_original: 'https://img.example.com/a.png' });
    const kept = await postMember(t, auth, { email, full_name: 'A B' });
    assert.equal(kept.json<AddMemberResponse>().data.member.avatar_url_original, 'https://img.example.com/a.png');
    const replaced = await postMember(t, auth, { email, full_name: 'A B', avatar_url_original: 'https://img.example.com/b.png' });
    assert.equal(replaced.json<AddMemberResponse>().data.member.avatar_url_original, 'https://img.example.com/b.png');
    const cleared = await postMember(t, auth, { email, full_name: 'A B', avatar_url_original: null });
    assert.equal(cleared.json<AddMemberResponse>().data.member.avatar_url_original, null);
  });

  it('reactivates a deactivated member and says it was updated', async () => {
    const t = ctx();
    const { auth } = await t.community();
    const email = uniqueEmail();
    const id = (await postMember(t, auth, { email, full_name: 'Dee Active' })).json<AddMemberResponse>().data.member.id;
    const off = await t.request({ method: 'POST', url: `/admin/v0/members/${id}/deactivate`, headers: auth });
    assert.equal(off.statusCode, 200);
    assert.equal((await checkMember(t, auth, email)).is_deactivated, true);

    const res = await postMember(t, auth, { email, full_name: 'Dee Active' });
    assert.equal(res.statusCode, 200);
    const body = res.json<AddMemberResponse>();
    assert.equal(body.data.member.id, id);
    assert.match(body.message, /updated/i);
    assert.match(body.message, /reactivated/i);
    assert.deepEqual(await checkMember(t, auth, email), { is_member: true, is_deactivated: false, is_forgotten: false });
  });

  it('makes a forgotten member (from the import) active again instead of duplicating it', async () => {
    const t = ctx();
    const { auth, id: communityId } = await t.community();
    const id = newId();
    await importInto(t, communityId, { members: [{ id, email: 'gone@example.com', full_name: 'Gone Away', state: 'forgotten' }] });
    const res = await postMember(t, auth, { email: 'Gone@example.com', full_name: 'Back Again' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json<AddMemberResponse>().data.member.id, id);
    assert.deepEqual(await checkMember(t, auth, 'gone@example.com'), { is_member: true, is_deactivated: false, is_forgotten: false });
  });

  it('links the member to the profile with that email that has a chat identity', async () => {
    const t = ctx();
    const { auth, id: communityId } = await t.community();
    const siteOnly = newId();
    const inChat = newId();
    await importInto(t, communityId, {
      profiles: [
        { profile_id: siteOnly, email: 'Kim@Example.com', first_name: 'Kim', created_at: '2026-01-01T00:00:00.000Z' },
        { profile_id: inChat, email: 'kim@example.com', first_name: 'Kim', chat_user_id: 'U0KIM', created_at: '2026-02-01T00:00:00.000Z' },
      ],
    });
    const res = await postMember(t, auth, { email: 'KIM@example.com', full_name: 'Kim Lee' });
    assert.equal(res.statusCode, 201);
    assert.equal(res.json<AddMemberResponse>().data.member.chat_profile_id, inChat);
  });

  it('does not link to a profile without a chat identity, nor to a profile of another community', async () => {
    const t = ctx();
    const a = await t.community();
    const b = await t.community();
    await importInto(t, a.id, { profiles: [{ profile_id: newId(), email: 'noc@example.com' }] });
    await importInto(t, b.id, { profiles: [{ profile_id: newId(), email: 'other@example.com', chat_user_id: 'U0OTHER' }] });
    const plain = await postMember(t, a.auth, { email: 'noc@example.com', full_name: 'No Chat' });
    assert.equal(plain.json<AddMemberResponse>().data.member.chat_profile_id, null);
    const foreign = await postMember(t, a.auth, { email: 'other@example.com', full_name: 'Other Place' });
    assert.equal(foreign.json<AddMemberResponse>().data.member.chat_profile_id, null);
  });

  it('links an existing member on update once a chat profile with its email exists', async () => {
    const t = ctx();
    const { auth, id: communityId } = await t.community();
    const email = uniqueEmail();
    const first = await postMember(t, auth, { email, full_name: 'Late Joiner' });
    assert.equal(first.json<AddMemberResponse>().data.member.chat_profile_id, null);
    const profileId = newId();
    await importInto(t, communityId, { profiles: [{ profile_id: profileId, email, chat_user_id: 'U0LATE' }] });
    const second = await postMember(t, auth, { email, full_name: 'Late Joiner' });
    assert.equal(second.statusCode, 200);
    assert.equal(second.json<AddMemberResponse>().data.member.chat_profile_id, profileId);
  });

  it('keeps communities apart: the same email is a different member in another community', async () => {
    const t = ctx();
    const a = await t.community();
    const b = await t.community();
    const inA = await postMember(t, a.auth, { email: 'shared@example.com', full_name: 'In A' });
    assert.deepEqual(await checkMember(t, b.auth, 'shared@example.com'), { is_member: false, is_deactivated: false, is_forgotten: false });
    const inB = await postMember(t, b.auth, { email: 'shared@example.com', full_name: 'In B' });
    assert.equal(inB.statusCode, 201);
    assert.notEqual(inB.json<AddMemberResponse>().data.member.id, inA.json<AddMemberResponse>().data.member.id);
  });

  it('creates exactly one member out of 10 concurrent adds of one new email', async () => {
    const t = ctx();
    const { auth, id: communityId } = await t.community();
    const email = uniqueEmail('race');
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => postMember(t, auth, { email: i % 2 ? email.toUpperCase() : email, full_name: `Racer ${i}` })),
    );
    const statuses = responses.map((r) => r.statusCode).sort();
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    const ids = new Set(responses.map((r) => r.json<AddMemberResponse>().data.member.id));
    assert.equal(ids.size, 1);
    const rows = await t.database.db.selectFrom('members').select('id').where('community_id', '=', communityId).execute();
    assert.equal(rows.length, 1);
  });

  it('accepts a form-encoded body with the same rules (201, then 200 on the same email)', async () => {
    const t = ctx();
    const { auth } = await t.community();
    const created = await postMemberForm(t, auth, {
      email: 'form@example.com',
      full_name: 'Form Filler',
      invite_to_chat: 'false',
      avatar_url_original: '',
    });
    assert.equal(created.statusCode, 201, created.body);
    const member = created.json<AddMemberResponse>().data.member;
    assert.equal(member.full_name, 'Form Filler');
    assert.equal(member.avatar_url_original, null);
    const updated = await postMemberForm(t, auth, {
      email: 'FORM@example.com',
      full_name: 'Form Filler',
      avatar_url_original: 'https://img.example.com/f.png',
    });
    assert.equal(updated.statusCode, 200);
    assert.equal(updated.json<AddMemberResponse>().data.member.avatar_url_original, 'https://img.example.com/f.png');
  });

  it('refuses other content types with 415', async () => {
    const t = ctx();
    const { auth } = await t.community();
    const res = await t.request({
      method: 'POST',
      url: '/admin/v0/members',
      headers: { ...auth, 'content-type': 'text/plain' },
      payload: 'email=a@b.co',
    });
    assert.equal(res.statusCode, 415);
    assert.equal(res.json<ErrorResponse>().success, false);
  });

  it('answers 403 plan_required below Enterprise and creates nothing', async () => {
    const t = ctx();
    for (const plan of ['free', 'growth', 'momentum']) {
      const { auth } = await t.community(plan);
      const res = await postMember(t, auth, { email: 'low@example.com', full_name: 'Low Plan' });
      assert.equal(res.statusCode, 403, plan);
      const body = res.json<ErrorResponse>();
      assert.equal(body.error.code, 'plan_required');
      assert.match(body.error.hint, /enterprise/i);
      assert.equal((await checkMember(t, auth, 'low@example.com')).is_member, false);
    }
  });

  it('documents the optional Idempotency-Key header and both body encodings in the OpenAPI document', async () => {
    const t = ctx();
    const res = await t.request({ method: 'GET', url: '/admin/v0/openapi.json' });
    type Operation = {
      parameters?: { name: string; in: string; required?: boolean }[];
      requestBody?: { content: Record<string, unknown> };
    };
    const doc = res.json<{ paths: Record<string, { post?: Operation }> }>();
    const operation = doc.paths['/admin/v0/members']?.post;
    const header = operation?.parameters?.find((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
    assert.ok(header, 'Idempotency-Key parameter');
    assert.notEqual(header.required, true);
    assert.deepEqual(Object.keys(operation?.requestBody?.content ?? {}).sort(), ['application/json', 'application/x-www-form-urlencoded']);
  });
});
