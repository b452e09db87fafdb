import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeEachEngine } from '../../support/harness.js';
import { type Envelope, event, eventId, feed, importInto, listEvents, profile, uuid } from './fixtures.js';

/** Every field of the spec's Calendar event table. */
const specFields = [
  'id',
  'created_at',
  'updated_at',
  'allow_public_guest_list',
  'description_chat_blocks',
  'description_chat_blocks_references',
  'recap_chat_blocks',
  'recap_chat_blocks_references',
  'enable_registration_button',
  'start_date',
  'end_date',
  'show_end_date',
  'external_speakers',
  'is_unlisted',
  'link',
  'location',
  'partner_event_id',
  'publish_to_site',
  'triggers_webhooks',
  'webhook_custom_metadata',
  'recording_link',
  'slug',
  'status',
  'title',
  'use_registration_btn_as_link',
  'attendees_count',
  'published_to',
  'hosts',
  'speakers',
  'cover_image_url',
  'tags',
  'reminders_config',
].sort();

const description = [
  {
    type: 'rich_text',
    block_id: 'b1',
    elements: [
      {
        type: 'rich_text_section',
        elements: [
          { type: 'text', text: 'Hosted by ' },
          { type: 'user', user_id: 'U00000001' },
          { type: 'text', text: ' in ' },
          { type: 'channel', channel_id: 'C00000001' },
          { type: 'link', url: 'https://example.org/agenda.png' },
          { type: 'emoji', name: 'partyparrot' },
          { type: 'user', user_id: 'UNOBODY' },
        ],
      },
    ],
  },
];
const recap = [
  { type: 'rich_text', block_id: 'r1', elements: [{ type: 'rich_text_section', elements: [{ type: 'user', user_id: 'U00000002' }] }] },
];

const full = event(1, '2026-12-01T17:00:00Z', null, {
  start_date: '2026-12-01T18:00:00+01:00',
  end_date: '2026-12-01T19:30:00+01:00',
  title: 'Quarterly meetup',
  created_at: '2026-10-01T08:00:00Z',
  updated_at: '2026-10-02T08:00:00Z',
  allow_public_guest_list: true,
  description_chat_blocks: description,
  recap_chat_blocks: recap,
  enable_registration_button: true,
  show_end_date: true,
  external_speakers: 'Ada Lovelace',
  is_unlisted: true,
  link: 'https://meet.example.org/q',
  location: 'Berlin',
  partner_event_id: 'partner-42',
  publish_to_site: true,
  triggers_webhooks: true,
  webhook_custom_metadata: '{"k":1}',
  recording_link: 'https://video.example.org/q',
  slug: 'quarterly-meetup',
  use_registration_btn_as_link: true,
  cover_image_url: 'https://img.example.org/q.png',
  host_profile_ids: [uuid(2, 1), uuid(1, 1)],
  speaker_profile_ids: [uuid(3, 1)],
  tags: [{ id: 't1', label: 'Meetup', tag_group_id: 'g1', created_at: '2026-09-01T00:00:00Z' }, { id: 't2' }],
  published_to: [{ feed_id: uuid(1, 2), chat_channel_id: 'C00000001', chat_message_permalink: 'https://chat.example.org/p/1' }],
  reminders_config: [{ minutes: 60 }, { minutes: 1440 }],
  attendees: [{ profile_id: uuid(1, 1), personal_join_link: 'https://meet.example.org/q?u=1' }, { profile_id: uuid(2, 1) }],
});

type EventRecord = Record<string, unknown> & { hosts: { profile_id: string }[]; speakers: { profile_id: string }[] };

describeEachEngine('calendar events: retrieve one', (ctx) => {
  let auth: { authorization: string };
  let otherAuth: { authorization: string };
  const get = async (id: string, headers = auth) => {
    const res = await ctx().request({ method: 'GET', url: `/admin/v0/calendar_events/${id}`, headers });
    return { status: res.statusCode, body: res.json<Envelope<EventRecord>>() };
  };

  before(async () => {
    const community = await ctx().community();
    auth = community.auth;
    await importInto(ctx(), community.id, {
      profiles: [profile(1), profile(2), profile(3)],
      feeds: [feed(1)],
      calendar_events: [full, event(2, '2026-12-02T10:00:00Z', null)],
    });
    const other = await ctx().community();
    otherAuth = other.auth;
    await importInto(ctx(), other.id, { calendar_events: [event(3, '2026-12-03T10:00:00Z')] });
  });

  it('returns every spec field of a fully described event, with stored values', async () => {
    const { status, body } = await get(eventId(1));
    assert.equal(status, 200);
    assert.equal(body.success, true);
    const data = body.data;
    assert.deepEqual(Object.keys(data).sort(), specFields);
    assert.equal(data.id, eventId(1));
    assert.equal(data.title, 'Quarterly meetup');
    assert.equal(data.start_date, '2026-12-01T17:00:00+00:00', 'normalised to UTC');
    assert.equal(data.end_date, '2026-12-01T18:30:00+00:00');
    assert.equal(data.created_at, '2026-10-01T08:00:00+00:00');
    assert.equal(data.updated_at, '2026-10-02T08:00:00+00:00');
    assert.equal(data.status, 'published');
    for (const field of [
      'allow_public_guest_list',
      'enable_registration_button',
      'show_end_date',
      'is_unlisted',
      'publish_to_site',
      'triggers_webhooks',
      'use_registration_btn_as_link',
    ]) {
      assert.equal(data[field], true, field);
    }
    for (const field of [
      'external_speakers',
      'link',
      'location',
      'partner_event_id',
      'webhook_custom_metadata',
      'recording_link',
      'slug',
      'cover_image_url',
    ]) {
      assert.equal(data[field], full[field], field);
    }
    assert.deepEqual(data.description_chat_blocks, description);
    assert.deepEqual(data.recap_chat_blocks, recap);
    assert.equal(data.attendees_count, 2);
    assert.deepEqual(data.reminders_config, [{ minutes: 60 }, { minutes: 1440 }]);
    assert.deepEqual(data.published_to, [
      { chat_channel_id: 'C00000001', chat_message_permalink: 'https://chat.example.org/p/1', feed_id: uuid(1, 2) },
    ]);
    assert.deepEqual(data.tags, [
      { id: 't1', created_at: '2026-09-01T00:00:00+00:00', tag_group_id: 'g1', label: 'Meetup' },
      { id: 't2', created_at: '2026-10-01T08:00:00+00:00', tag_group_id: '', label: '' },
    ]);
  });

  it('shows hosts and speakers with their profile fields but no e-mail or names, in the order the event lists them', async () => {
    const { body } = await get(eventId(1));
    assert.deepEqual(
      body.data.hosts.map((p) => p.profile_id),
      [uuid(2, 1), uuid(1, 1)],
    );
    assert.deepEqual(
      body.data.speakers.map((p) => p.profile_id),
      [uuid(3, 1)],
    );
    const host = body.data.hosts[1] as Record<string, unknown>;
    assert.equal(host.email, undefined);
    assert.equal(host.first_name, undefined);
    assert.equal(host.chat_user_id, 'U00000001');
    assert.equal(host.preferred_name, 'First1 Last1');
    assert.equal(typeof host.chat_is_admin, 'boolean');
    assert.equal(typeof host.preferred_image_72, 'string');
  });

  it('resolves the references of the description and the recap from the stored mentions', async () => {
    const { body } = await get(eventId(1));
    assert.deepEqual(body.data.description_chat_blocks_references, {
      mentioned_chat_users: [{ profile_id: uuid(1, 1), preferred_name: 'First1 Last1', chat_user_id: 'U00000001' }],
      mentioned_chat_channels: [
        {
          chat_channel: { id: 'C00000001', name: 'feed-1' },
          feed: { id: uuid(1, 2), label: 'Feed 1', slug: 'feed-1', public_id: '', chat_channel: { name: 'feed-1' } },
        },
      ],
      custom_emojis: [{ alias: 'partyparrot', name: 'partyparrot', url: '' }],
      urls: [{ order_seen: 0, is_embedded_media: true, is_image: true, is_video: false, url: 'https://example.org/agenda.png' }],
    });
    assert.deepEqual(body.data.recap_chat_blocks_references, {
      mentioned_chat_users: [{ profile_id: uuid(2, 1), preferred_name: 'First2 Last2', chat_user_id: 'U00000002' }],
      mentioned_chat_channels: [],
      custom_emojis: [],
      urls: [],
    });
  });

  it('fills every field of a minimal event with defaults', async () => {
    const { status, body } = await get(eventId(2));
    assert.equal(status, 200);
    assert.deepEqual(Object.keys(body.data).sort(), specFields);
    assert.equal(body.data.end_date, '');
    assert.equal(body.data.created_at, '2026-11-21T12:00:00+00:00', 'the import time');
    const empty = { mentioned_chat_users: [], mentioned_chat_channels: [], custom_emojis: [], urls: [] };
    assert.deepEqual(body.data.description_chat_blocks_references, empty);
    assert.deepEqual(body.data.recap_chat_blocks_references, empty);
    // Lists that are naturally empty stay []; values the event does not have are null (decisions.md).
    for (const field of ['hosts', 'speakers', 'tags', 'published_to', 'reminders_config']) {
      assert.deepEqual(body.data[field], [], field);
    }
    const nullFields = ['description_chat_blocks', 'recap_chat_blocks', 'link', 'recording_link'];
    for (const field of [...nullFields, 'webhook_custom_metadata', 'partner_event_id', 'external_speakers']) {
      assert.equal(body.data[field], null, field);
    }
    assert.equal(body.data.attendees_count, 0);
    assert.equal(body.data.is_unlisted, false);
    assert.equal(body.data.location, '', 'a text the spec does not make nullable stays a string');
  });

  it('shows the same record in the list as by id', async () => {
    const { body } = await listEvents(ctx(), auth, 'is_unlisted=true&published_to_site=true');
    const single = await get(eventId(1));
    assert.deepEqual(body.data.records, [single.body.data]);
  });

  for (const bad of ['short', 'ev00000000011', 'ev0000000-01', 'ev00000000%C3%A9', 'ev000000_001']) {
    it(`answers 400 validation_failed naming calendar_event_id for the malformed id ${bad}`, async () => {
      const { status, body } = await get(bad);
      assert.equal(status, 400);
      assert.equal(body.error?.code, 'validation_failed');
      assert.match(body.error?.message ?? '', /calendar_event_id/);
    });
  }

  it('answers 404 not_found for a well-formed unknown id', async () => {
    const { status, body } = await get('zzzzzzzzzzzz');
    assert.equal(status, 404);
    assert.equal(body.error?.code, 'not_found');
  });

  it('answers 404 for an event of another community, in both directions', async () => {
    assert.equal((await get(eventId(3))).status, 404);
    assert.equal((await get(eventId(1), otherAuth)).status, 404);
    assert.equal((await get(eventId(3), otherAuth)).status, 200);
  });

  it('ids are case-sensitive', async () => {
    assert.equal((await get(eventId(1).toUpperCase())).status, 404);
  });
});
