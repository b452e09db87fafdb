import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ImportError } from '../../../src/import/import-section.js';
import { describeEachEngine, type TestApp } from '../../support/harness.js';
import { type Envelope, event, eventId, feed, idsOf, importInto, listEvents, profile, uuid } from './fixtures.js';

type EventRecord = Record<string, unknown> & { hosts: { profile_id: string }[]; tags: { id: string }[]; attendees_count: number };

async function getEvent(app: TestApp, auth: Record<string, string>, id: string) {
  const res = await app.request({ method: 'GET', url: `/admin/v0/calendar_events/${id}`, headers: auth });
  return { status: res.statusCode, data: res.json<Envelope<EventRecord>>().data };
}

/** Runs an import expected to fail and returns its message. */
async function refusal(app: TestApp, communityId: string, document: Record<string, unknown>): Promise<string> {
  try {
    await importInto(app, communityId, document);
  } catch (error) {
    assert.ok(error instanceof ImportError, String(error));
    return error.message;
  }
  assert.fail('the import was accepted');
}

const richEvent = (n: number, extra: Record<string, unknown> = {}) =>
  event(n, '2026-12-01T10:00:00Z', 3_600_000, {
    host_profile_ids: [uuid(1, 1)],
    speaker_profile_ids: [uuid(2, 1)],
    tags: [{ id: 't1', label: 'One' }],
    published_to: [{ feed_id: uuid(1, 2) }],
    attendees: [{ profile_id: uuid(1, 1) }],
    description_chat_blocks: [
      { type: 'rich_text', block_id: 'b', elements: [{ type: 'rich_text_section', elements: [{ type: 'user', user_id: 'U00000002' }] }] },
    ],
    ...extra,
  });

const base = { profiles: [profile(1), profile(2), profile(3)], feeds: [feed(1), feed(2)] };

describeEachEngine('calendar events: import section', (ctx) => {
  it('imports events referring to profiles and feeds of the same file, and reports the count', async () => {
    const c = await ctx().community();
    const counts = await importInto(ctx(), c.id, { ...base, calendar_events: [richEvent(1), event(2, '2026-12-02T10:00:00Z')] });
    assert.equal(counts.calendar_events, 2);
    const { data } = await getEvent(ctx(), c.auth, eventId(1));
    assert.deepEqual(
      data.hosts.map((h) => h.profile_id),
      [uuid(1, 1)],
    );
    assert.equal(data.attendees_count, 1);
    assert.equal((data.description_chat_blocks_references as { mentioned_chat_users: unknown[] }).mentioned_chat_users.length, 1);
  });

  it('changes nothing when the same file is imported again, even later', async () => {
    const c = await ctx().community();
    const file = { ...base, calendar_events: [richEvent(1), event(2, '2026-12-02T10:00:00Z')] };
    await importInto(ctx(), c.id, file);
    const first = await listEvents(ctx(), c.auth, 'time_filter=all');
    ctx().clock.advance(86_400_000);
    try {
      await importInto(ctx(), c.id, file);
      const second = await listEvents(ctx(), c.auth, 'time_filter=all');
      assert.deepEqual(second.body, first.body);
    } finally {
      ctx().clock.advance(-86_400_000);
    }
  });

  it("replaces an event's fields and child rows on re-import, and moves updated_at", async () => {
    const c = await ctx().community();
    await importInto(ctx(), c.id, { ...base, calendar_events: [richEvent(1)] });
    const before = await getEvent(ctx(), c.auth, eventId(1));
    ctx().clock.advance(60_000);
    try {
      await importInto(ctx(), c.id, {
        calendar_events: [
          richEvent(1, {
            title: 'Renamed',
            host_profile_ids: [uuid(3, 1), uuid(2, 1)],
            tags: [{ id: 't2' }],
            published_to: [{ feed_id: uuid(2, 2) }],
            attendees: [{ profile_id: uuid(2, 1) }, { profile_id: uuid(3, 1) }],
          }),
        ],
      });
    } finally {
      ctx().clock.advance(-60_000);
    }
    const { data } = await getEvent(ctx(), c.auth, eventId(1));
    assert.equal(data.title, 'Renamed');
    assert.deepEqual(
      data.hosts.map((h) => h.profile_id),
      [uuid(3, 1), uuid(2, 1)],
    );
    assert.deepEqual(
      data.tags.map((t) => t.id),
      ['t2'],
    );
    assert.equal(data.attendees_count, 2);
    assert.equal(data.created_at, before.data.created_at);
    assert.equal(data.updated_at, '2026-11-21T12:01:00+00:00');
    assert.deepEqual(idsOf((await listEvents(ctx(), c.auth, 'tag_ids=t1')).body), []);
    assert.deepEqual(idsOf((await listEvents(ctx(), c.auth, 'tag_ids=t2')).body), [eventId(1)]);
    assert.deepEqual(idsOf((await listEvents(ctx(), c.auth, `feed_id=${uuid(1, 2)}`)).body), []);
    assert.deepEqual(idsOf((await listEvents(ctx(), c.auth, `feed_id=${uuid(2, 2)}`)).body), [eventId(1)]);
  });

  const refusals: [what: string, events: Record<string, unknown>[], expected: RegExp][] = [
    [
      'a dangling host',
      [event(1, '2026-12-01T10:00:00Z'), richEvent(2, { host_profile_ids: [uuid(1, 1), uuid(9, 1)] })],
      /^calendar_events\[1\]\.host_profile_ids\[1\]: no profile "0+-0000-4001-8000-0+9"/,
    ],
    [
      'a dangling speaker',
      [richEvent(1, { speaker_profile_ids: [uuid(9, 1)] })],
      /^calendar_events\[0\]\.speaker_profile_ids\[0\]: no profile/,
    ],
    [
      'a dangling attendee',
      [richEvent(1, { attendees: [{ profile_id: uuid(9, 1) }] })],
      /^calendar_events\[0\]\.attendees\[0\]\.profile_id: no profile/,
    ],
    [
      'a dangling feed',
      [richEvent(1, { published_to: [{ feed_id: uuid(9, 2) }] })],
      /^calendar_events\[0\]\.published_to\[0\]\.feed_id: no feed/,
    ],
    ['an unknown field', [event(1, '2026-12-01T10:00:00Z', 1, { colour: 'red' })], /^calendar_events\[0\]\.colour: is not a known field/],
    [
      'a derived field',
      [event(1, '2026-12-01T10:00:00Z', 1, { hosts: [] })],
      /^calendar_events\[0\]\.hosts: is computed from host_profile_ids/,
    ],
    [
      'attendees_count',
      [event(1, '2026-12-01T10:00:00Z', 1, { attendees_count: 3 })],
      /^calendar_events\[0\]\.attendees_count: is computed/,
    ],
    ['a malformed id', [event(1, '2026-12-01T10:00:00Z', 1, { id: 'short' })], /^calendar_events\[0\]\.id: /],
    ['a duplicate id', [event(1, '2026-12-01T10:00:00Z'), event(1, '2026-12-02T10:00:00Z')], /^calendar_events\[1\]\.id: duplicate id/],
    ['a missing start_date', [{ id: eventId(1), status: 'published' }], /^calendar_events\[0\]\.start_date: is required/],
    ['an unknown status', [event(1, '2026-12-01T10:00:00Z', 1, { status: 'cancelled' })], /^calendar_events\[0\]\.status: /],
    ['an end before the start', [event(1, '2026-12-01T10:00:00Z', -1)], /^calendar_events\[0\]\.end_date: must not be before start_date/],
    [
      'a malformed end_date',
      [event(1, '2026-12-01T10:00:00Z', null, { end_date: 'tomorrow' })],
      /^calendar_events\[0\]\.end_date: must be a date-time with a zone/,
    ],
    [
      'invalid blocks',
      [
        event(1, '2026-12-01T10:00:00Z', 1, {
          recap_chat_blocks: [{ type: 'rich_text', elements: [{ elements: [] }] }],
        }),
      ],
      /^calendar_events\[0\]\.recap_chat_blocks\[0\]\.elements\[0\]\.type: required/,
    ],
    ['a tag id with a comma', [event(1, '2026-12-01T10:00:00Z', 1, { tags: [{ id: 'a,b' }] })], /^calendar_events\[0\]\.tags\[0\]\.id: /],
    [
      'a duplicate tag',
      [event(1, '2026-12-01T10:00:00Z', 1, { tags: [{ id: 'a' }, { id: 'a' }] })],
      /^calendar_events\[0\]\.tags\[1\]\.id: duplicate id/,
    ],
    [
      'a duplicate host',
      [event(1, '2026-12-01T10:00:00Z', 1, { host_profile_ids: [uuid(1, 1), uuid(1, 1).toUpperCase()] })],
      /^calendar_events\[0\]\.host_profile_ids\[1\]: duplicate id/,
    ],
    [
      'a non-http join link',
      [richEvent(1, { attendees: [{ profile_id: uuid(1, 1), personal_join_link: 'javascript:alert(1)' }] })],
      /^calendar_events\[0\]\.attendees\[0\]\.personal_join_link: must be an http\(s\) URL/,
    ],
  ];
  for (const [what, events, expected] of refusals) {
    it(`refuses ${what}, naming section, index and field, and keeps nothing of the file`, async () => {
      const c = await ctx().community();
      const message = await refusal(ctx(), c.id, { ...base, calendar_events: events });
      assert.match(message, expected);
      const list = await listEvents(ctx(), c.auth, 'time_filter=all');
      assert.equal(list.body.data.total_records, 0);
      const profiles = await ctx().database.db.selectFrom('profiles').select('id').where('community_id', '=', c.id).execute();
      assert.deepEqual(profiles, [], 'the profiles of the same file are rolled back too');
    });
  }

  it('refuses a profile of another community as a dangling reference', async () => {
    const owner = await ctx().community();
    await importInto(ctx(), owner.id, { profiles: [profile(1)] });
    const c = await ctx().community();
    assert.match(
      await refusal(ctx(), c.id, { calendar_events: [richEvent(1, { speaker_profile_ids: [], attendees: [], published_to: [] })] }),
      /host_profile_ids\[0\]: no profile/,
    );
  });

  it('leaves a previously imported event untouched when a later import is refused', async () => {
    const c = await ctx().community();
    await importInto(ctx(), c.id, { ...base, calendar_events: [richEvent(1)] });
    const before = await getEvent(ctx(), c.auth, eventId(1));
    await refusal(ctx(), c.id, {
      calendar_events: [richEvent(1, { title: 'Changed', tags: [] }), richEvent(2, { host_profile_ids: [uuid(9, 1)] })],
    });
    assert.deepEqual(await getEvent(ctx(), c.auth, eventId(1)), before);
  });

  it('treats null like an absent field: null where the API answers null, the default elsewhere', async () => {
    const c = await ctx().community();
    await importInto(ctx(), c.id, {
      calendar_events: [
        event(1, '2026-12-01T10:00:00Z', null, {
          end_date: null,
          title: null,
          tags: null,
          link: null,
          description_chat_blocks: null,
          recap_chat_blocks: null,
        }),
      ],
    });
    const { data } = await getEvent(ctx(), c.auth, eventId(1));
    assert.equal(data.end_date, '');
    assert.equal(data.title, '');
    assert.equal(data.link, null);
    assert.deepEqual(data.tags, []);
    assert.equal(data.description_chat_blocks, null);
    assert.equal(data.recap_chat_blocks, null);
  });

  it('imports a large file in batches (2,000 events, each with children)', async () => {
    const c = await ctx().community();
    const events = Array.from({ length: 2000 }, (_, i) =>
      event(i + 1, new Date(Date.parse('2026-12-01T00:00:00Z') + i * 60_000).toISOString(), 60_000, {
        tags: [{ id: `t${i % 7}` }],
        host_profile_ids: [uuid(1 + (i % 3), 1)],
        attendees: [{ profile_id: uuid(1, 1) }, { profile_id: uuid(2, 1) }],
        published_to: [{ feed_id: uuid(1 + (i % 2), 2) }],
      }),
    );
    const counts = await importInto(ctx(), c.id, { ...base, calendar_events: events });
    assert.equal(counts.calendar_events, 2000);
    const list = await listEvents(ctx(), c.auth, 'tag_ids=t3');
    assert.equal(list.body.data.total_records, Math.ceil((2000 - 3) / 7));
    assert.equal((await getEvent(ctx(), c.auth, eventId(1999))).data.attendees_count, 2);
  });
});
