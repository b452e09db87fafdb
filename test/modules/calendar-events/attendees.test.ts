import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it } from 'node:test';
import { describeEachEngine, type TestApp } from '../../support/harness.js';
import { type Envelope, event, eventId, importInto, profile, uuid } from './fixtures.js';

const url = (id: string) => `/admin/v0/calendar_events/${id}/attendees`;
const chatUser = (n: number) => `U${String(n).padStart(8, '0')}`;

function patch(app: TestApp, id: string, headers: Record<string, string>, body: unknown, contentType: string | null = 'application/json') {
  return app.request({
    method: 'PATCH',
    url: url(id),
    headers: { ...headers, ...(contentType ? { 'content-type': contentType } : {}) },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function attendeesCount(app: TestApp, auth: Record<string, string>, id: string): Promise<number> {
  const res = await app.request({ method: 'GET', url: `/admin/v0/calendar_events/${id}`, headers: auth });
  return res.json<Envelope<{ attendees_count: number }>>().data.attendees_count;
}

/** The stored join link of an attendee (the API has no read of it), or undefined when not an attendee. */
async function joinLink(app: TestApp, communityId: string, id: string, profileN: number): Promise<string | null | undefined> {
  const row = await app.database.db
    .selectFrom('calendar_event_attendees')
    .select('personal_join_link')
    .where('community_id', '=', communityId)
    .where('event_id', '=', id)
    .where('profile_id', '=', uuid(profileN, 1))
    .executeTakeFirst();
  return row?.personal_join_link;
}

describeEachEngine('calendar events: attendee upsert', (ctx) => {
  const seeded = async () => {
    const community = await ctx().community();
    await importInto(ctx(), community.id, {
      profiles: Array.from({ length: 12 }, (_, i) => profile(i + 1)),
      calendar_events: [event(1, '2026-12-01T10:00:00Z', 60_000, { attendees: [{ profile_id: uuid(1, 1) }] })],
    });
    return community;
  };

  it('adds a new attendee: 200 {success: true}, attendees_count + 1, link stored', async () => {
    const c = await seeded();
    const res = await patch(ctx(), eventId(1), c.auth, {
      user: { chat_user_id: chatUser(2) },
      personal_join_link: 'https://meet.example.org/j/2',
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { success: true });
    assert.equal(await attendeesCount(ctx(), c.auth, eventId(1)), 2);
    assert.equal(await joinLink(ctx(), c.id, eventId(1), 2), 'https://meet.example.org/j/2');
  });

  it('adds an attendee without a link', async () => {
    const c = await seeded();
    assert.equal((await patch(ctx(), eventId(1), c.auth, { user: { chat_user_id: chatUser(3) } })).statusCode, 200);
    assert.equal(await joinLink(ctx(), c.id, eventId(1), 3), null);
    assert.equal(await attendeesCount(ctx(), c.auth, eventId(1)), 2);
  });

  it('updates the link of an existing attendee without counting them twice', async () => {
    const c = await seeded();
    const body = { user: { chat_user_id: chatUser(1) }, personal_join_link: 'http://meet.example.org/j/1' };
    assert.equal((await patch(ctx(), eventId(1), c.auth, body)).statusCode, 200);
    assert.equal((await patch(ctx(), eventId(1), c.auth, body)).statusCode, 200);
    assert.equal(await attendeesCount(ctx(), c.auth, eventId(1)), 1);
    assert.equal(await joinLink(ctx(), c.id, eventId(1), 1), 'http://meet.example.org/j/1');
  });

  it('clears the link with "" or null, and leaves it alone when the field is absent', async () => {
    const c = await seeded();
    const user = { chat_user_id: chatUser(4) };
    for (const [link, expected] of [
      ['https://a.example.org/1', 'https://a.example.org/1'],
      ['', null],
      ['https://a.example.org/2', 'https://a.example.org/2'],
      [null, null],
      ['https://a.example.org/3', 'https://a.example.org/3'],
    ] as const) {
      assert.equal((await patch(ctx(), eventId(1), c.auth, { user, personal_join_link: link })).statusCode, 200);
      assert.equal(await joinLink(ctx(), c.id, eventId(1), 4), expected);
    }
    assert.equal((await patch(ctx(), eventId(1), c.auth, { user })).statusCode, 200);
    assert.equal(await joinLink(ctx(), c.id, eventId(1), 4), 'https://a.example.org/3');
    assert.equal(await attendeesCount(ctx(), c.auth, eventId(1)), 2);
  });

  it('counts exactly one new attendee when the same user is added by 10 concurrent requests', async () => {
    const c = await seeded();
    const results = await Promise.all(
      Array.from({ length: 10 }, () => patch(ctx(), eventId(1), c.auth, { user: { chat_user_id: chatUser(5) } })),
    );
    assert.deepEqual(
      results.map((r) => r.statusCode),
      Array(10).fill(200),
    );
    assert.equal(await attendeesCount(ctx(), c.auth, eventId(1)), 2);
  });

  it('counts every one of 10 different users added concurrently', async () => {
    const c = await seeded();
    const users = Array.from({ length: 10 }, (_, i) => chatUser(i + 3));
    const results = await Promise.all(users.map((id) => patch(ctx(), eventId(1), c.auth, { user: { chat_user_id: id } })));
    assert.deepEqual(
      results.map((r) => r.statusCode),
      Array(10).fill(200),
    );
    assert.equal(await attendeesCount(ctx(), c.auth, eventId(1)), 11);
  });

  it('answers 404 for an unknown event, an unknown user, and the event or user of another community', async () => {
    const c = await seeded();
    const other = await ctx().community();
    await importInto(ctx(), other.id, { profiles: [profile(50)], calendar_events: [event(2, '2026-12-01T10:00:00Z')] });
    const cases: [string, Record<string, string>, string][] = [
      ['zzzzzzzzzzzz', c.auth, chatUser(2)],
      [eventId(1), c.auth, 'UNKNOWN'],
      [eventId(2), c.auth, chatUser(2)],
      [eventId(1), c.auth, chatUser(50)],
      [eventId(1), other.auth, chatUser(50)],
    ];
    for (const [id, auth, user] of cases) {
      const res = await patch(ctx(), id, auth, { user: { chat_user_id: user } });
      assert.equal(res.statusCode, 404, `${id} ${user}`);
      assert.equal(res.json<Envelope<unknown>>().error?.code, 'not_found');
    }
    assert.equal(await attendeesCount(ctx(), c.auth, eventId(1)), 1);
    assert.equal(await attendeesCount(ctx(), other.auth, eventId(2)), 0);
  });

  it('answers 415 for a body that is not JSON, or without Content-Type', async () => {
    const c = await seeded();
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', null]) {
      const body =
        type === 'application/x-www-form-urlencoded'
          ? `user[chat_user_id]=${chatUser(2)}`
          : JSON.stringify({ user: { chat_user_id: chatUser(2) } });
      const res = await patch(ctx(), eventId(1), c.auth, body, type);
      assert.equal(res.statusCode, 415, String(type));
      assert.equal(res.json<Envelope<unknown>>().success, false);
    }
    assert.equal(await attendeesCount(ctx(), c.auth, eventId(1)), 1);
  });

  const invalidBodies: [string, unknown, string][] = [
    ['no user', { personal_join_link: 'https://a.example.org' }, 'user'],
    ['no chat_user_id', { user: {} }, 'chat_user_id'],
    ['an empty chat_user_id', { user: { chat_user_id: '' } }, 'chat_user_id'],
    ['a numeric chat_user_id', { user: { chat_user_id: 42 } }, 'chat_user_id'],
    ['a second identifier', { user: { chat_user_id: 'U1', email: 'a@example.org' } }, 'email'],
    ['an unknown field', { user: { chat_user_id: 'U1' }, role: 'vip' }, 'role'],
    ['an ftp link', { user: { chat_user_id: chatUser(2) }, personal_join_link: 'ftp://files.example.org/x' }, 'personal_join_link'],
    ['a relative link', { user: { chat_user_id: chatUser(2) }, personal_join_link: '/join/2' }, 'personal_join_link'],
    ['a link with spaces', { user: { chat_user_id: chatUser(2) }, personal_join_link: 'https://a.example.org/a b' }, 'personal_join_link'],
    [
      'a link over 2048 characters',
      { user: { chat_user_id: chatUser(2) }, personal_join_link: `https://a.example.org/${'x'.repeat(2030)}` },
      'personal_join_link',
    ],
    ['a numeric link', { user: { chat_user_id: chatUser(2) }, personal_join_link: 7 }, 'personal_join_link'],
    ['an array body', [{ user: { chat_user_id: 'U1' } }], 'body'],
  ];
  for (const [what, body, field] of invalidBodies) {
    it(`answers 400 validation_failed naming ${field} for ${what}`, async () => {
      const c = await seeded();
      const res = await patch(ctx(), eventId(1), c.auth, body);
      assert.equal(res.statusCode, 400, res.body);
      const error = res.json<Envelope<unknown>>().error;
      assert.equal(error?.code, 'validation_failed');
      assert.match(error?.message ?? '', new RegExp(field));
      assert.equal(await attendeesCount(ctx(), c.auth, eventId(1)), 1);
    });
  }

  it('accepts a link of exactly 2048 characters', async () => {
    const c = await seeded();
    const link = `https://a.example.org/${'x'.repeat(2048 - 22)}`;
    assert.equal(link.length, 2048);
    assert.equal(
      (await patch(ctx(), eventId(1), c.auth, { user: { chat_user_id: chatUser(2) }, personal_join_link: link })).statusCode,
      200,
    );
  });

  it('answers 400 invalid_json for a malformed JSON body', async () => {
    const c = await seeded();
    const res = await patch(ctx(), eventId(1), c.auth, '{"user": {');
    assert.equal(res.statusCode, 400);
    assert.equal(res.json<Envelope<unknown>>().error?.code, 'invalid_json');
  });

  it('accepts an Idempotency-Key header', async () => {
    const c = await seeded();
    const res = await patch(ctx(), eventId(1), { ...c.auth, 'idempotency-key': randomUUID() }, { user: { chat_user_id: chatUser(6) } });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(await attendeesCount(ctx(), c.auth, eventId(1)), 2);
  });
});
