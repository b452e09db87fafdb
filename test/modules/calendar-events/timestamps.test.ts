import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeEachEngine } from '../../support/harness.js';
import { type Envelope, eventId, feed, idsOf, importInto, listEvents, profile, uuid } from './fixtures.js';

type Json = Record<string, unknown>;

/*
 * Issue 17: instants keep their microseconds from import to answer, and events and profiles spell
 * them as PostgreSQL's JSON does (`2025-03-11T13:06:35.552988+00:00`), on both engines.
 */
describeEachEngine('calendar events: timestamps to the microsecond', (ctx) => {
  let auth: { authorization: string };

  before(async () => {
    const community = await ctx().community();
    auth = community.auth;
    await importInto(ctx(), community.id, {
      profiles: [profile(1, { created_at: '2025-03-11 13:06:35.552988+00' })],
      feeds: [feed(1)],
      calendar_events: [
        {
          id: eventId(1),
          status: 'published',
          start_date: '2025-03-11T13:06:35.552988+00:00',
          // PostgreSQL's text form, with an offset: 2025-03-11T14:06:35.5Z.
          end_date: '2025-03-11 16:06:35.5+02',
          created_at: '2025-03-01T10:00:00.000001Z',
          updated_at: '2025-04-01T11:53:07.78104+00:00',
          host_profile_ids: [uuid(1, 1)],
          tags: [{ id: 't1', created_at: '2025-02-01T00:00:00.123456-01:00' }],
        },
        { id: eventId(2), status: 'published', start_date: '2025-03-20T18:00:00Z' },
      ],
    });
  });

  async function getEvent(id: string): Promise<Json> {
    const res = await ctx().request({ method: 'GET', url: `/admin/v0/calendar_events/${id}`, headers: auth });
    assert.equal(res.statusCode, 200);
    return res.json<Envelope<Json>>().data;
  }

  it("answers every instant of an event in PostgreSQL's JSON spelling, to the microsecond", async () => {
    const data = await getEvent(eventId(1));
    assert.equal(data.start_date, '2025-03-11T13:06:35.552988+00:00');
    assert.equal(data.end_date, '2025-03-11T14:06:35.5+00:00', 'offset applied, trailing zeros dropped');
    assert.equal(data.created_at, '2025-03-01T10:00:00.000001+00:00');
    assert.equal(data.updated_at, '2025-04-01T11:53:07.78104+00:00');
    assert.deepEqual(
      (data.tags as Json[]).map((t) => t.created_at),
      ['2025-02-01T01:00:00.123456+00:00'],
    );
  });

  it('spells a whole second without a fraction', async () => {
    const data = await getEvent(eventId(2));
    assert.equal(data.start_date, '2025-03-20T18:00:00+00:00');
    assert.equal(data.end_date, '');
  });

  it("spells a host's created_at in the JSON spelling, to the microsecond", async () => {
    const data = await getEvent(eventId(1));
    assert.equal((data.hosts as Json[])[0]?.created_at, '2025-03-11T13:06:35.552988+00:00');
  });

  it('splits upcoming from past at the microsecond (reference_date with six fraction digits)', async () => {
    // Event 1 ends at 14:06:35.500000; an event ending exactly at the reference instant is upcoming.
    const at = async (instant: string) =>
      idsOf((await listEvents(ctx(), auth, `time_filter=upcoming&reference_date=${encodeURIComponent(instant)}`)).body);
    assert.deepEqual(await at('2025-03-11T14:06:35.500000Z'), [eventId(1), eventId(2)]);
    assert.deepEqual(await at('2025-03-11T14:06:35.500001Z'), [eventId(2)]);
    const past = await listEvents(ctx(), auth, `time_filter=past&reference_date=${encodeURIComponent('2025-03-11T14:06:35.500001Z')}`);
    assert.deepEqual(idsOf(past.body), [eventId(1)]);
  });

  it('refuses an import instant outside years 1700-2250 (not exact in µs), naming the field', async () => {
    const community = await ctx().community();
    await assert.rejects(
      importInto(ctx(), community.id, { calendar_events: [{ id: eventId(3), status: 'published', start_date: '1500-01-01T00:00:00Z' }] }),
      /^ImportError: calendar_events\[0\]\.start_date: must be a date-time with a zone/,
    );
  });
});
