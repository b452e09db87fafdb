import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachEngine } from '../../support/harness.js';
import { event, eventId, feed, importInto, profile, uuid } from './fixtures.js';

type Json = Record<string, unknown>;

/*
 * The exact text of every refusal of the event writers: the API's `validation_failed` message
 * naming `body.<field>` and the import's `calendar_events[i].<field>: <message>` line. Both render
 * the same failures of the event rules, each in its own names (hosts / host_profile_ids).
 */

const base = { title: 'Launch party', start_date: '2026-12-01T18:00:00Z' };
const leapSecond = '2026-06-30T23:59:60Z';
const badBlocks = [{ type: 'rich_text', elements: [{ text: 'no type' }] }];
const unknownFile = uuid(77, 5);

/** [what, body, expected message] of POST /calendar_events. */
const postCases: [string, Json, string][] = [
  [
    'text and blocks together',
    { ...base, description_text: 'x', description_chat_blocks: [] },
    'body.description_text: cannot be sent together with description_chat_blocks (send one of them)',
  ],
  [
    'recap text and blocks together',
    { ...base, recap_text: 'x', recap_chat_blocks: [] },
    'body.recap_text: cannot be sent together with recap_chat_blocks (send one of them)',
  ],
  [
    'cover file and URL together',
    { ...base, cover_image_url: 'https://example.org/a.png', cover_image_file_id: unknownFile },
    'body.cover_image_file_id: cannot be sent together with cover_image_url (the file gives the URL)',
  ],
  [
    'a host with two identifiers',
    { ...base, hosts: [{ profile_id: uuid(1, 1) }, { profile_id: uuid(2, 1), email: 'a@b.c' }] },
    'body.hosts[1]: must hold exactly one of chat_user_id, email, profile_id',
  ],
  [
    'a speaker with a blank e-mail',
    { ...base, speakers: [{ email: '  ' }] },
    'body.speakers[0]: must hold exactly one of chat_user_id, email, profile_id',
  ],
  [
    'an unknown speaker',
    { ...base, speakers: [{ chat_user_id: 'U00000001' }, { email: 'nobody@example.org' }] },
    'body.speakers[1]: no profile with email "nobody@example.org" in this community',
  ],
  [
    'the same host twice',
    { ...base, hosts: [{ profile_id: uuid(1, 1) }, { chat_user_id: 'U00000001' }] },
    `body.hosts[1]: duplicate id "${uuid(1, 1)}"`,
  ],
  [
    'an unknown tag',
    { ...base, tags: ['tag-ai', 'tag-none'] },
    'body.tags[1]: no tag "tag-none" in this community (tags come from the import)',
  ],
  ['the same tag twice', { ...base, tags: ['tag-ai', 'tag-ai'] }, 'body.tags[1]: duplicate id "tag-ai"'],
  ['a taken slug', { ...base, slug: 'taken' }, 'body.slug: "taken" is already the slug of another event of this community'],
  ['end before start', { ...base, end_date: '2026-12-01T17:00:00Z' }, 'body.end_date: must not be before start_date'],
  [
    'a leap second',
    { ...base, start_date: leapSecond },
    'body.start_date: must be a date-time with a zone, years 1700 to 2250, such as 2026-11-21T18:00:00Z or 2025-05-14 19:16:38.630803+00',
  ],
  [
    'a cover file id that is no UUID',
    { ...base, cover_image_file_id: 'nope' },
    'body.cover_image_file_id: must match pattern "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"',
  ],
  [
    'an unknown cover file',
    { ...base, cover_image_file_id: unknownFile },
    `body.cover_image_file_id: no file "${unknownFile}" in this community`,
  ],
  ['malformed blocks', { ...base, description_chat_blocks: badBlocks }, 'body.description_chat_blocks[0].elements[0].type: required'],
];

/** [what, calendar_events records, expected message] of the import. */
const importCases: [string, Json[], string][] = [
  [
    'a derived field',
    [event(20, '2026-11-01T10:00:00Z', null, { hosts: [] })],
    'calendar_events[0].hosts: is computed from host_profile_ids and cannot be imported',
  ],
  ['a missing field', [{ id: eventId(20), status: 'published' }], 'calendar_events[0].start_date: is required'],
  ['an unknown field', [event(20, '2026-11-01T10:00:00Z', null, { colour: 'red' })], 'calendar_events[0].colour: is not a known field'],
  [
    'a bad tag id',
    [event(20, '2026-11-01T10:00:00Z', null, { tags: [{ id: 'a,b' }] })],
    'calendar_events[0].tags[0].id: must match pattern "^[^,\\s](?:[^,]*[^,\\s])?$"',
  ],
  ['end before start', [event(20, '2026-11-01T10:00:00Z', -1)], 'calendar_events[0].end_date: must not be before start_date'],
  [
    'a leap second',
    [event(20, '2026-11-01T10:00:00Z', null, { start_date: leapSecond })],
    'calendar_events[0].start_date: must be a date-time with a zone, years 1700 to 2250, such as 2026-11-21T18:00:00Z or 2025-05-14 19:16:38.630803+00',
  ],
  [
    'an attendee twice',
    [event(20, '2026-11-01T10:00:00Z', null, { attendees: [{ profile_id: uuid(1, 1) }, { profile_id: uuid(1, 1).toUpperCase() }] })],
    `calendar_events[0].attendees[1].profile_id: duplicate id "${uuid(1, 1).toUpperCase()}"`,
  ],
  [
    'a bad join link',
    [event(20, '2026-11-01T10:00:00Z', null, { attendees: [{ profile_id: uuid(1, 1), personal_join_link: 'ftp://x' }] })],
    'calendar_events[0].attendees[0].personal_join_link: must be an http(s) URL',
  ],
  [
    'an empty published_to',
    [event(20, '2026-11-01T10:00:00Z', null, { published_to: [{ chat_message_permalink: 'x' }] })],
    'calendar_events[0].published_to[0]: needs a feed_id or a chat_channel_id',
  ],
  [
    'cover file and URL together',
    [event(20, '2026-11-01T10:00:00Z', null, { cover_image_url: 'https://example.org/a.png', cover_image_file_id: unknownFile })],
    'calendar_events[0].cover_image_file_id: cannot be given together with cover_image_url (the file gives the URL)',
  ],
  [
    'malformed blocks',
    [event(20, '2026-11-01T10:00:00Z', null, { recap_chat_blocks: badBlocks })],
    'calendar_events[0].recap_chat_blocks[0].elements[0].type: required',
  ],
  [
    'an unknown host',
    [event(20, '2026-11-01T10:00:00Z'), event(21, '2026-11-01T10:00:00Z', null, { host_profile_ids: [uuid(1, 1), uuid(9, 1)] })],
    `calendar_events[1].host_profile_ids[1]: no profile "${uuid(9, 1)}" in this community`,
  ],
  [
    'an unknown attendee',
    [event(20, '2026-11-01T10:00:00Z', null, { attendees: [{ profile_id: uuid(9, 1) }] })],
    `calendar_events[0].attendees[0].profile_id: no profile "${uuid(9, 1)}" in this community`,
  ],
  [
    'an unknown feed',
    [event(20, '2026-11-01T10:00:00Z', null, { published_to: [{ feed_id: uuid(9, 2) }] })],
    `calendar_events[0].published_to[0].feed_id: no feed "${uuid(9, 2)}" in this community`,
  ],
  [
    'an unknown cover file',
    [event(20, '2026-11-01T10:00:00Z'), event(21, '2026-11-01T10:00:00Z', null, { cover_image_file_id: unknownFile })],
    `calendar_events[1].cover_image_file_id: no file "${unknownFile}" in this community`,
  ],
  [
    'an id twice',
    [event(20, '2026-11-01T10:00:00Z'), event(20, '2026-11-02T10:00:00Z')],
    `calendar_events[1].id: duplicate id "${eventId(20)}" in this file`,
  ],
];

describeEachEngine('calendar event refusals: the same failures rendered by the API and by the import', (ctx) => {
  let auth: { authorization: string };
  let communityId = '';
  const post = (body: Json) => ctx().request({ method: 'POST', url: '/admin/v0/calendar_events', headers: auth, payload: body });

  it('is set up', async () => {
    const community = await ctx().community();
    auth = community.auth;
    communityId = community.id;
    await importInto(ctx(), communityId, {
      profiles: [profile(1), profile(2)],
      feeds: [feed(1)],
      calendar_events: [event(1, '2026-11-01T10:00:00Z', null, { tags: [{ id: 'tag-ai', label: 'AI' }], slug: 'taken' })],
    });
  });

  for (const [what, body, expected] of postCases) {
    it(`POST refuses ${what}`, async () => {
      const res = await post(body);
      assert.equal(res.statusCode, 400, res.body);
      const error = res.json<{ error: { code: string; message: string } }>().error;
      assert.equal(error.code, 'validation_failed');
      assert.equal(error.message, expected);
    });
  }

  it('PATCH refuses the same way, and the attendee update names body.personal_join_link', async () => {
    const patch = (url: string, body: Json) => ctx().request({ method: 'PATCH', url, headers: auth, payload: body });
    const res = await patch(`/admin/v0/calendar_events/${eventId(1)}`, { hosts: [{ chat_user_id: 'U00000009' }] });
    assert.equal(res.statusCode, 400);
    assert.equal(
      res.json<{ error: { message: string } }>().error.message,
      'body.hosts[0]: no profile with chat_user_id "U00000009" in this community',
    );
    const cover = await patch(`/admin/v0/calendar_events/${eventId(1)}`, { cover_image_url: null, cover_image_file_id: null });
    assert.equal(
      cover.json<{ error: { message: string } }>().error.message,
      'body.cover_image_file_id: cannot be sent together with cover_image_url (the file gives the URL)',
    );
    const link = await patch(`/admin/v0/calendar_events/${eventId(1)}/attendees`, {
      user: { chat_user_id: 'U00000001' },
      personal_join_link: 'ftp://x',
    });
    assert.equal(link.statusCode, 400);
    assert.equal(
      link.json<{ error: { message: string } }>().error.message,
      'body.personal_join_link: must be an http(s) URL (or "" or null to clear it)',
    );
  });

  for (const [what, records, expected] of importCases) {
    it(`the import refuses ${what}`, async () => {
      await assert.rejects(importInto(ctx(), communityId, { calendar_events: records }), (error: Error) => {
        assert.equal(error.message, expected);
        return true;
      });
    });
  }
});
