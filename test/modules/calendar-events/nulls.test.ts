import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeEachEngine } from '../../support/harness.js';
import { type Envelope, event, eventId, importInto, listEvents, profile, uuid } from './fixtures.js';

type Json = Record<string, unknown>;

/*
 * Issue 17 (decisions.md, "Answering as the hosted product answers"): an event answers null where
 * it has no value, never "" or [] (one public client is in Ruby, where "" is true); its hosts and
 * speakers carry exactly the profile fields the hosted product shows there.
 */
const nullableTexts = ['link', 'recording_link', 'webhook_custom_metadata', 'partner_event_id', 'external_speakers'] as const;
const emptyReferences = { mentioned_chat_users: [], mentioned_chat_channels: [], custom_emojis: [], urls: [] };

const personFields = [
  'profile_id',
  'created_at',
  'preferred_name',
  'preferred_image_original',
  'preferred_image_1024',
  'preferred_image_512',
  'preferred_image_192',
  'preferred_image_72',
  'preferred_image_48',
  'preferred_image_32',
  'preferred_image_24',
  'chat_user_id',
  'chat_is_admin',
  'chat_is_bot',
  'chat_image_72',
  'chat_image_original',
];

const block = (text: string): Json => ({
  type: 'rich_text',
  elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text }] }],
});

describeEachEngine('calendar events: null where there is no value; hosts and speakers fields', (ctx) => {
  let auth: { authorization: string };

  before(async () => {
    const community = await ctx().community();
    auth = community.auth;
    const values = {
      link: 'https://meet.example.org/x',
      recording_link: 'https://video.example.org/x',
      webhook_custom_metadata: '{"k":1}',
      partner_event_id: 'evt-123',
      external_speakers: 'Ada Lovelace',
    };
    await importInto(ctx(), community.id, {
      profiles: [profile(1, { chat_image_72: 'https://img.example.org/72.png', chat_is_admin: true }), profile(2)],
      calendar_events: [
        event(1, '2026-12-01T10:00:00Z'),
        event(2, '2026-12-02T10:00:00Z', null, {
          ...Object.fromEntries(nullableTexts.map((field) => [field, null])),
          recap_chat_blocks: null,
          description_chat_blocks: null,
        }),
        event(3, '2026-12-03T10:00:00Z', null, {
          ...Object.fromEntries(nullableTexts.map((field) => [field, ''])),
          recap_chat_blocks: [],
          description_chat_blocks: [],
        }),
        event(4, '2026-12-04T10:00:00Z', null, {
          ...values,
          recap_chat_blocks: [block('recap')],
          description_chat_blocks: [block('about')],
          host_profile_ids: [uuid(1, 1)],
          speaker_profile_ids: [uuid(2, 1), uuid(1, 1)],
        }),
      ],
    });
  });

  async function getEvent(n: number): Promise<Json> {
    const res = await ctx().request({ method: 'GET', url: `/admin/v0/calendar_events/${eventId(n)}`, headers: auth });
    assert.equal(res.statusCode, 200);
    return res.json<Envelope<Json>>().data;
  }

  const cases: [string, number][] = [
    ['left out of the import', 1],
    ['imported as null', 2],
    ['imported as "" or []', 3],
  ];
  for (const [label, n] of cases) {
    it(`answers null for every value ${label}, keeping the references objects with four empty arrays`, async () => {
      const data = await getEvent(n);
      for (const field of [...nullableTexts, 'recap_chat_blocks', 'description_chat_blocks']) {
        assert.ok(Object.hasOwn(data, field), `${field} is present`);
        assert.equal(data[field], null, field);
      }
      assert.deepEqual(data.recap_chat_blocks_references, emptyReferences);
      assert.deepEqual(data.description_chat_blocks_references, emptyReferences);
      assert.deepEqual(data.hosts, []);
      assert.deepEqual(data.tags, []);
    });
  }

  it('answers the strings and blocks an event has', async () => {
    const data = await getEvent(4);
    assert.equal(data.link, 'https://meet.example.org/x');
    assert.equal(data.recording_link, 'https://video.example.org/x');
    assert.equal(data.webhook_custom_metadata, '{"k":1}');
    assert.equal(data.partner_event_id, 'evt-123');
    assert.equal(data.external_speakers, 'Ada Lovelace');
    assert.deepEqual(data.recap_chat_blocks, [block('recap')]);
    assert.deepEqual(data.description_chat_blocks, [block('about')]);
  });

  it('shows hosts and speakers with exactly the listed profile fields, in JSON spelling', async () => {
    const data = await getEvent(4);
    const [host] = data.hosts as Json[];
    assert.deepEqual(Object.keys(host ?? {}), personFields);
    assert.equal(host?.profile_id, uuid(1, 1));
    assert.equal(host?.created_at, '2026-01-01T00:00:00+00:00');
    assert.equal(host?.chat_is_admin, true);
    assert.equal(host?.chat_image_72, 'https://img.example.org/72.png');
    const speakers = data.speakers as Json[];
    assert.deepEqual(
      speakers.map((s) => s.profile_id),
      [uuid(2, 1), uuid(1, 1)],
    );
    for (const speaker of speakers) assert.deepEqual(Object.keys(speaker), personFields);
  });

  it('answers the same records in the list', async () => {
    const { body } = await listEvents(ctx(), auth, 'time_filter=all');
    assert.deepEqual(body.data.records, await Promise.all([1, 2, 3, 4].map(getEvent)));
  });
});
