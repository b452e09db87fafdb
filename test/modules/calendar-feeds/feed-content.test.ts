import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachEngine, type TestApp } from '../../support/harness.js';
import { icalReaderSkipReason, type ReadEvent, readIcs } from '../../support/ical-reader.js';
import type { Envelope } from '../calendar-events/fixtures.js';
import { createFeed, event, getFeed, importInto, profile, textBlocks, uuid } from './fixtures.js';

const host = 'community.example.org';
// Commas, semicolons, a newline, emoji (one with joiners: several code points, one character on screen).
const trickyTitle = 'Meetup, talks; and food\nsecond line 🎉 👩‍👩‍👧 café';
// 2,000 characters mixing one-, two-, three- and four-octet characters, so folds fall next to each of them.
const longDescription = 'aé€😀 Lorem ipsum, dolor; sit\\amet '.repeat(80).slice(0, 2000);

const eventsDocument = {
  profiles: [profile(1), profile(2)],
  members: [{ id: uuid(1, 5), email: 'person1@example.org', full_name: 'Person One', chat_profile_id: uuid(1, 1) }],
  calendar_events: [
    event(1, '2026-12-01T04:30:00Z', 2 * 3600_000, {
      title: trickyTitle,
      start_date: '2026-12-01T10:00:00+05:30',
      end_date: '2026-12-01T12:00:00+05:30',
      publish_to_site: true,
      location: 'Room 1, Floor 2',
      link: 'https://example.org/e/1',
      tags: [{ id: 't1', label: 'Meetup', tag_group_id: 'g1' }],
      reminders_config: [{ minutes: 15 }, { minutes: 1440 }],
      description_chat_blocks: textBlocks(longDescription),
      host_profile_ids: [uuid(2, 1)],
      created_at: '2026-11-01T09:00:00Z',
    }),
    event(2, '2026-12-05T18:00:00Z', 3600_000, {
      publish_to_site: true,
      tags: [{ id: 't2', label: 'Workshop', tag_group_id: 'g1' }],
      attendees: [{ profile_id: uuid(1, 1) }, { profile_id: uuid(2, 1) }],
    }),
    event(3, '2026-12-06T18:00:00Z', 3600_000, { status: 'draft', publish_to_site: true }),
    event(4, '2026-12-07T18:00:00Z', 3600_000, { publish_to_site: false }),
    event(5, '2026-12-08T18:00:00Z', 3600_000, { publish_to_site: true, is_unlisted: true }),
    // The clock is 2026-11-21T12:00Z: ended 51 days ago (out of the 30-day window), 10 days ago (in).
    event(6, '2026-10-01T18:00:00Z', 3600_000, { publish_to_site: true }),
    event(7, '2026-11-11T18:00:00Z', null, { publish_to_site: true }),
  ],
};

const uidOf = (n: number) => `ev${String(n).padStart(10, '0')}@${host}`;
const byUid = (events: ReadEvent[], n: number) => events.find((e) => e.uid === uidOf(n));

async function seeded(app: TestApp) {
  const community = await app.community('enterprise', 'Riverside Makers');
  await importInto(app, community.id, eventsDocument);
  return community;
}

describeEachEngine(
  'calendar feeds: the iCalendar text, read back by python3-icalendar',
  (ctx) => {
    it(
      'shows the published events on the site in the window, every field, and no personal data',
      { skip: icalReaderSkipReason },
      async () => {
        const app = ctx();
        const { auth } = await seeded(app);
        const feed = await createFeed(app, auth, { label: 'All events' });
        assert.match(feed.url ?? '', /^https:\/\/community\.example\.org\/calendar\/[A-Za-z0-9_-]{43}\.ics$/);
        assert.equal(feed.webcal_url, feed.url?.replace('https:', 'webcal:'));
        const res = await getFeed(app, feed);
        assert.equal(res.statusCode, 200);
        assert.equal(res.headers['content-type'], 'text/calendar; charset=utf-8');
        const calendar = readIcs(res.rawPayload);
        assert.equal(calendar.version, '2.0');
        assert.equal(calendar.name, 'Riverside Makers: All events');
        assert.equal(calendar.x_wr_calname, 'Riverside Makers: All events');
        assert.equal(calendar.refresh_interval, 'PT1H');
        assert.equal(calendar.x_published_ttl, 'PT1H');
        assert.deepEqual(calendar.events.map((e) => e.uid).sort(), [uidOf(1), uidOf(2), uidOf(7)]);
        const first = byUid(calendar.events, 1) as ReadEvent;
        assert.deepEqual(
          { ...first, dtstamp: null, last_modified: null },
          {
            uid: uidOf(1),
            sequence: 0,
            dtstamp: null,
            last_modified: null,
            created: '2026-11-01T09:00:00Z',
            // +05:30 at the right UTC instant.
            dtstart: '2026-12-01T04:30:00Z',
            dtend: '2026-12-01T06:30:00Z',
            summary: trickyTitle,
            description: longDescription,
            location: 'Room 1, Floor 2',
            url: 'https://example.org/e/1',
            status: 'CONFIRMED',
            categories: ['Meetup'],
            alarms: [
              { action: 'DISPLAY', trigger_seconds: -900, description: trickyTitle },
              { action: 'DISPLAY', trigger_seconds: -86400, description: trickyTitle },
            ],
            organizer: null,
            attendee: null,
          },
        );
        assert.ok(first.dtstamp && first.last_modified);
        const open = byUid(calendar.events, 7) as ReadEvent;
        assert.equal(open.dtend, null, 'an event without an end has no DTEND');
        // No e-mail, no names of hosts or attendees anywhere in the text.
        const text = res.body;
        for (const personal of ['@example.org', 'person1', 'First1', 'Last2', 'ORGANIZER', 'ATTENDEE'])
          assert.ok(!text.includes(personal), personal);
      },
    );

    it('ends every line with CRLF, the last included, folds at 75 octets never inside a character, and unfolds byte-exact', async () => {
      const app = ctx();
      const { auth } = await seeded(app);
      const res = await getFeed(app, await createFeed(app, auth));
      const bytes = res.rawPayload;
      assert.ok(bytes.subarray(-2).equals(Buffer.from('\r\n')), 'the last line ends with CRLF');
      const text = bytes.toString('utf8');
      assert.ok(!/[^\r]\n/.test(text) && !/\r[^\n]/.test(text), 'no bare LF or CR');
      const decoder = new TextDecoder('utf-8', { fatal: true });
      let folded = 0;
      let start = 0;
      for (let i = bytes.indexOf('\r\n'); i !== -1; i = bytes.indexOf('\r\n', start)) {
        const line = bytes.subarray(start, i);
        assert.ok(line.length <= 75, `line of ${line.length} octets: ${line.toString()}`);
        decoder.decode(line); // throws on a character cut in two
        if (line[0] === 0x20) folded++;
        start = i + 2;
      }
      assert.ok(folded > 20, 'the long description is folded');
      const unfolded = text.replace(/\r\n /g, '');
      const escaped = longDescription.replace(/\\/g, '\\\\').replace(/;/g, '\\;').replace(/,/g, '\\,');
      assert.ok(unfolded.includes(`DESCRIPTION:${escaped}\r\n`), 'unfolding gives back the escaped description byte for byte');
      assert.ok(unfolded.includes('SUMMARY:Meetup\\, talks\\; and food\\nsecond line 🎉 👩‍👩‍👧 café\r\n'));
    });

    it(
      'raises SEQUENCE on a move, not on a description change; a deleted or withdrawn event stays CANCELLED with SEQUENCE raised',
      { skip: icalReaderSkipReason },
      async () => {
        const app = ctx();
        const { auth } = await seeded(app);
        const feed = await createFeed(app, auth);
        const before = readIcs((await getFeed(app, feed)).rawPayload);
        assert.equal(byUid(before.events, 1)?.sequence, 0);
        const patch = (id: string, body: Record<string, unknown>) =>
          app.request({
            method: 'PATCH',
            url: `/admin/v0/calendar_events/${id}`,
            headers: { ...auth, 'content-type': 'application/json' },
            payload: body,
          });
        assert.equal(
          (await patch('ev0000000001', { start_date: '2026-12-02T10:00:00+05:30', end_date: '2026-12-02T11:00:00+05:30' })).statusCode,
          200,
        );
        assert.equal((await patch('ev0000000002', { description_text: 'Bring a laptop.' })).statusCode, 200);
        const moved = readIcs((await getFeed(app, feed)).rawPayload);
        assert.equal(byUid(moved.events, 1)?.sequence, 1);
        assert.equal(byUid(moved.events, 1)?.dtstart, '2026-12-02T04:30:00Z');
        assert.equal(byUid(moved.events, 2)?.sequence, 0, 'a description change is not a SEQUENCE change');
        assert.equal(byUid(moved.events, 2)?.description, 'Bring a laptop.');
        // Read again without a change: the same SEQUENCE (it is kept, not recomputed).
        assert.equal(byUid(readIcs((await getFeed(app, feed)).rawPayload).events, 1)?.sequence, 1);

        assert.equal(
          (await app.request({ method: 'DELETE', url: '/admin/v0/calendar_events/ev0000000002', headers: auth })).statusCode,
          200,
        );
        assert.equal((await patch('ev0000000007', { status: 'needs_approval' })).statusCode, 200);
        const after = readIcs((await getFeed(app, feed)).rawPayload);
        const deleted = byUid(after.events, 2) as ReadEvent;
        assert.equal(deleted.status, 'CANCELLED');
        assert.equal(deleted.sequence, 1);
        assert.equal(deleted.dtstart, '2026-12-05T18:00:00Z');
        const withdrawn = byUid(after.events, 7) as ReadEvent;
        assert.equal(withdrawn.status, 'CANCELLED');
        assert.equal(withdrawn.sequence, 1);
        // Published again: back, CONFIRMED, SEQUENCE raised once more.
        assert.equal((await patch('ev0000000007', { status: 'published' })).statusCode, 200);
        const back = byUid(readIcs((await getFeed(app, feed)).rawPayload).events, 7) as ReadEvent;
        assert.deepEqual([back.status, back.sequence], ['CONFIRMED', 2]);
      },
    );

    it(
      'shows every change of an event, also one that keeps its updated_at (events unchanged since the last render are reused)',
      { skip: icalReaderSkipReason },
      async () => {
        const app = ctx();
        const { auth, id } = await seeded(app);
        const feed = await createFeed(app, auth);
        const stamp = '2026-11-10T08:00:00Z';
        const record = (label: string, minutes: number) =>
          event(8, '2026-12-09T18:00:00Z', 3600_000, {
            publish_to_site: true,
            updated_at: stamp,
            tags: [{ id: 't9', label, tag_group_id: 'g1' }],
            reminders_config: [{ minutes }],
          });
        await importInto(app, id, { calendar_events: [record('Before', 10)] });
        const first = byUid(readIcs((await getFeed(app, feed)).rawPayload).events, 8) as ReadEvent;
        assert.deepEqual([first.categories, first.alarms.map((a) => a.trigger_seconds)], [['Before'], [-600]]);
        // The same updated_at, another label and reminder: the text must follow the stored event, not its stamp.
        await importInto(app, id, { calendar_events: [record('After', 30)] });
        const calendar = readIcs((await getFeed(app, feed)).rawPayload);
        const second = byUid(calendar.events, 8) as ReadEvent;
        assert.deepEqual([second.categories, second.alarms.map((a) => a.trigger_seconds), second.sequence], [['After'], [-1800], 0]);
        assert.equal(byUid(calendar.events, 1)?.summary, trickyTitle, 'the others are unchanged');
      },
    );

    it(
      'filters by tag (id or label) and unlisted as the feed was created; an unknown tag is a 400',
      { skip: icalReaderSkipReason },
      async () => {
        const app = ctx();
        const { auth } = await seeded(app);
        const workshops = await createFeed(app, auth, { tag: 'Workshop' });
        assert.equal(workshops.tag_id, 't2');
        assert.deepEqual(
          readIcs((await getFeed(app, workshops)).rawPayload).events.map((e) => e.uid),
          [uidOf(2)],
        );
        const byId = await createFeed(app, auth, { tag: 't1' });
        assert.deepEqual(
          readIcs((await getFeed(app, byId)).rawPayload).events.map((e) => e.uid),
          [uidOf(1)],
        );
        const unlisted = await createFeed(app, auth, { include_unlisted: true });
        assert.deepEqual(
          readIcs((await getFeed(app, unlisted)).rawPayload)
            .events.map((e) => e.uid)
            .sort(),
          [uidOf(1), uidOf(2), uidOf(5), uidOf(7)],
        );
        const res = await app.request({
          method: 'POST',
          url: '/admin/v0/calendar_feeds',
          headers: { ...auth, 'content-type': 'application/json' },
          payload: { tag: 'Nope' },
        });
        assert.equal(res.statusCode, 400);
        assert.match(res.json<Envelope<unknown>>().error?.message ?? '', /^body\.tag: no event of the community carries the tag "Nope"/);
      },
    );

    it(
      "a member's own feed: the events the member attends, the same URL until revoked, listed with its member",
      { skip: icalReaderSkipReason },
      async () => {
        const app = ctx();
        const { auth } = await seeded(app);
        const post = () => app.request({ method: 'POST', url: `/admin/v0/members/${uuid(1, 5)}/calendar_feed`, headers: auth });
        const first = await post();
        assert.equal(first.statusCode, 201);
        const feed = first.json<Envelope<{ id: string; url: string; member_id: string }>>().data;
        const again = await post();
        assert.equal(again.statusCode, 200);
        assert.equal(again.json<Envelope<{ url: string }>>().data.url, feed.url);
        assert.deepEqual(
          readIcs((await getFeed(app, feed)).rawPayload).events.map((e) => e.uid),
          [uidOf(2)],
        );
        const listed = (await app.request({ method: 'GET', url: '/admin/v0/calendar_feeds', headers: auth })).json<
          Envelope<{ id: string; member_id: string | null; url: string | null }[]>
        >().data;
        assert.deepEqual(
          listed.map((f) => [f.id, f.member_id, f.url]),
          [[feed.id, uuid(1, 5), null]],
        );
        assert.equal((await app.request({ method: 'DELETE', url: `/admin/v0/calendar_feeds/${feed.id}`, headers: auth })).statusCode, 200);
        assert.equal((await getFeed(app, feed)).statusCode, 404);
        const renewed = await post();
        assert.equal(renewed.statusCode, 201);
        assert.notEqual(renewed.json<Envelope<{ url: string }>>().data.url, feed.url);
        const unknown = await app.request({ method: 'POST', url: `/admin/v0/members/${uuid(9, 5)}/calendar_feed`, headers: auth });
        assert.equal(unknown.statusCode, 404);
      },
    );
  },
  {
    env: { PUBLIC_BASE_URL: `https://${host}`, RATE_LIMIT_CALENDAR_PER_SECOND: '100000', RATE_LIMIT_CALENDAR_ADDRESS_PER_SECOND: '100000' },
  },
);
