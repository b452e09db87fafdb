import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachEngine } from '../../support/harness.js';
import { type AddMemberResponse, checkMember, type ErrorResponse, postMember, postMemberForm } from './members-support.js';

const valid = { email: 'valid@example.com', full_name: 'Val Id' };
const email254 = `x@${'a'.repeat(248)}.com`;

// Each case breaks one rule of the body and names the field the message must mention.
const invalidBodies: { name: string; body: Record<string, unknown>; field: string }[] = [
  { name: 'missing email', body: { full_name: 'No Email' }, field: 'email' },
  { name: 'email not an address', body: { ...valid, email: 'not-an-email' }, field: 'email' },
  { name: 'empty email', body: { ...valid, email: '' }, field: 'email' },
  { name: 'blank email', body: { ...valid, email: '   ' }, field: 'email' },
  { name: 'email of 255 characters', body: { ...valid, email: `x${email254}` }, field: 'email' },
  { name: 'email not a string', body: { ...valid, email: 42 }, field: 'email' },
  { name: 'missing full_name', body: { email: 'a@example.com' }, field: 'full_name' },
  { name: 'empty full_name', body: { ...valid, full_name: '' }, field: 'full_name' },
  { name: 'blank full_name', body: { ...valid, full_name: '    ' }, field: 'full_name' },
  { name: 'full_name of 101 characters', body: { ...valid, full_name: 'a'.repeat(101) }, field: 'full_name' },
  { name: 'avatar not a URI', body: { ...valid, avatar_url_original: 'not a url' }, field: 'avatar_url_original' },
  { name: 'avatar with a script scheme', body: { ...valid, avatar_url_original: 'javascript:alert(1)' }, field: 'avatar_url_original' },
  {
    name: 'avatar over 2048 characters',
    body: { ...valid, avatar_url_original: `https://x.example.com/${'a'.repeat(2030)}` },
    field: 'avatar_url_original',
  },
  { name: 'invite_to_chat as text in JSON', body: { ...valid, invite_to_chat: 'true' }, field: 'invite_to_chat' },
  { name: 'no channel ids', body: { ...valid, invite_to_chat: true, chat_channel_ids: [] }, field: 'chat_channel_ids' },
  {
    name: '11 channel ids',
    body: { ...valid, invite_to_chat: true, chat_channel_ids: Array.from({ length: 11 }, (_, i) => `C${i}`) },
    field: 'chat_channel_ids',
  },
  { name: 'an empty channel id', body: { ...valid, invite_to_chat: true, chat_channel_ids: [''] }, field: 'chat_channel_ids' },
  {
    name: 'a channel id of 33 characters',
    body: { ...valid, invite_to_chat: true, chat_channel_ids: [`C${'0'.repeat(32)}`] },
    field: 'chat_channel_ids',
  },
  { name: 'channel ids not an array', body: { ...valid, invite_to_chat: true, chat_channel_ids: 'C1' }, field: 'chat_channel_ids' },
  { name: 'channel ids without invite_to_chat', body: { ...valid, chat_channel_ids: ['C0ONE'] }, field: 'chat_channel_ids' },
  {
    name: 'channel ids with invite_to_chat false',
    body: { ...valid, invite_to_chat: false, chat_channel_ids: ['C0ONE'] },
    field: 'chat_channel_ids',
  },
  { name: 'an unknown field', body: { ...valid, nickname: 'Val' }, field: 'nickname' },
];

describeEachEngine('POST /admin/v0/members: body rules', (ctx) => {
  for (const { name, body, field } of invalidBodies) {
    it(`answers 400 validation_failed naming ${field} for ${name}, and creates nothing`, async () => {
      const t = ctx();
      const { auth } = await t.community();
      const res = await postMember(t, auth, body);
      assert.equal(res.statusCode, 400, res.body);
      const error = res.json<ErrorResponse>();
      assert.equal(error.success, false);
      assert.equal(error.error.code, 'validation_failed');
      assert.ok(error.error.message.includes(field), error.error.message);
      if (typeof body.email === 'string' && body.email.includes('@') && body.email.length <= 254)
        assert.equal((await checkMember(t, auth, body.email)).is_member, false);
    });
  }

  it('answers 400 invalid_json for a malformed JSON body', async () => {
    const t = ctx();
    const { auth } = await t.community();
    const res = await t.request({
      method: 'POST',
      url: '/admin/v0/members',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: '{"email":',
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json<ErrorResponse>().error.code, 'invalid_json');
  });

  it('accepts the boundaries: a 254-character email, a 100-character name, a 2048-character avatar URL', async () => {
    const t = ctx();
    const { auth } = await t.community();
    const avatar = `https://x.example.com/${'a'.repeat(2048 - 'https://x.example.com/'.length)}`;
    assert.equal(avatar.length, 2048);
    const res = await postMember(t, auth, { email: email254, full_name: 'n'.repeat(100), avatar_url_original: avatar });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json<AddMemberResponse>().data.member.email, email254);
  });

  it('accepts invite_to_chat: false alone, and treats an empty avatar URL as none', async () => {
    const t = ctx();
    const { auth } = await t.community();
    const res = await postMember(t, auth, {
      email: 'plain@example.com',
      full_name: 'Plain Add',
      invite_to_chat: false,
      avatar_url_original: '',
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json<AddMemberResponse>().data.member.avatar_url_original, null);
  });

  it('applies the same rules to form-encoded bodies', async () => {
    const t = ctx();
    const { auth } = await t.community();
    const cases: { fields: Record<string, string | string[]>; field: string }[] = [
      { fields: { email: 'not-an-email', full_name: 'Form Bad' }, field: 'email' },
      { fields: { email: 'form.bad@example.com' }, field: 'full_name' },
      { fields: { email: 'form.bad@example.com', full_name: 'Form Bad', invite_to_chat: 'maybe' }, field: 'invite_to_chat' },
      { fields: { email: 'form.bad@example.com', full_name: 'Form Bad', chat_channel_ids: 'C0ONE' }, field: 'chat_channel_ids' },
      {
        fields: {
          email: 'form.bad@example.com',
          full_name: 'Form Bad',
          invite_to_chat: 'true',
          chat_channel_ids: Array.from({ length: 11 }, (_, i) => `C${i}`),
        },
        field: 'chat_channel_ids',
      },
      { fields: { email: 'form.bad@example.com', full_name: 'Form Bad', extra: 'x' }, field: 'extra' },
    ];
    for (const { fields, field } of cases) {
      const res = await postMemberForm(t, auth, fields);
      assert.equal(res.statusCode, 400, `${JSON.stringify(fields)}: ${res.body}`);
      assert.equal(res.json<ErrorResponse>().error.code, 'validation_failed');
      assert.ok(res.json<ErrorResponse>().error.message.includes(field), res.json<ErrorResponse>().error.message);
    }
    assert.equal((await checkMember(t, auth, 'form.bad@example.com')).is_member, false);
  });

  it('checks the body before the plan-independent chat rule: channel ids without invite_to_chat fail even with a connection missing', async () => {
    const t = ctx();
    const { auth } = await t.community();
    const res = await postMember(t, auth, { ...valid, chat_channel_ids: ['C0ONE'] });
    assert.equal(res.json<ErrorResponse>().error.code, 'validation_failed');
  });
});
