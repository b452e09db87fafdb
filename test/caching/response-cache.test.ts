import assert from 'node:assert/strict';
import { it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { event, eventId, feed, hour, importInto, profile, uuid } from '../modules/calendar-events/fixtures.js';
import { describeEachEngine, type TestApp, testConfig } from '../support/harness.js';

// Event get, event lists and post lists are served from serialised answers kept per data version
// (docs/performance.md). These tests read an answer (so it is cached), change what it shows by
// every kind of write, and require the next answer to be the fresh one, byte for byte.

type Auth = { authorization: string };

const eventUrl = (n: number) => `/admin/v0/calendar_events/${eventId(n)}`;

async function body(app: TestApp, auth: Auth, url: string): Promise<string> {
  const res = await app.request({ method: 'GET', url, headers: auth });
  assert.equal(res.statusCode, 200, res.body);
  assert.match(String(res.headers['content-type']), /^application\/json; charset=utf-8$/);
  return res.body;
}

/** The same request answered by a second instance on the same database with the cache off. */
async function uncached(app: TestApp, auth: Auth, url: string): Promise<string> {
  const other = await buildApp({ config: testConfig({ RESPONSE_CACHE_MB: '0' }), database: app.database, clock: app.clock, logger: false });
  try {
    const res = await other.inject({ method: 'GET', url, headers: auth });
    assert.equal(res.statusCode, 200, res.body);
    return res.body;
  } finally {
    await other.close();
  }
}

describeEachEngine('response cache: cached answers stay exact', (ctx) => {
  const seeded = async () => {
    const community = await ctx().community();
    const start = new Date(ctx().clock.now() + hour).toISOString();
    await importInto(ctx(), community.id, {
      profiles: [profile(1), profile(2), profile(3)],
      feeds: [feed(1)],
      calendar_events: [
        event(1, start, hour, {
          host_profile_ids: [uuid(1, 1)],
          description_chat_blocks: [
            {
              type: 'rich_text',
              block_id: 'b1',
              elements: [
                {
                  type: 'rich_text_section',
                  elements: [
                    { type: 'user', user_id: 'U00000002' },
                    { type: 'channel', channel_id: 'C00000001' },
                  ],
                },
              ],
            },
          ],
        }),
        event(2, new Date(ctx().clock.now() + 3 * hour).toISOString(), hour),
      ],
    });
    return community;
  };

  it('answers a repeated read with the same bytes as an instance without the cache', async () => {
    const c = await seeded();
    const urls = [
      eventUrl(1),
      '/admin/v0/calendar_events',
      '/admin/v0/calendar_events?time_filter=all&per_page=1&page=1',
      '/admin/v0/feeds/home/posts',
    ];
    for (const url of urls) {
      const first = await body(ctx(), c.auth, url);
      assert.equal(await body(ctx(), c.auth, url), first, `${url}: second answer`);
      assert.equal(await uncached(ctx(), c.auth, url), first, `${url}: cache off`);
    }
  });

  it('shows a new attendee in the next event get and list (attendees_count)', async () => {
    const c = await seeded();
    const count = async (url: string) => {
      const parsed = JSON.parse(await body(ctx(), c.auth, url)) as {
        data: { attendees_count?: number; records?: { attendees_count: number }[] };
      };
      return parsed.data.attendees_count ?? parsed.data.records?.[0]?.attendees_count;
    };
    assert.equal(await count(eventUrl(1)), 0);
    assert.equal(await count('/admin/v0/calendar_events'), 0);
    const res = await ctx().request({
      method: 'PATCH',
      url: `${eventUrl(1)}/attendees`,
      headers: { ...c.auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ user: { chat_user_id: 'U00000003' } }),
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(await count(eventUrl(1)), 1);
    assert.equal(await count('/admin/v0/calendar_events'), 1);
  });

  it('shows re-imported hosts and references, and forgets deleted events', async () => {
    const c = await seeded();
    const before = await body(ctx(), c.auth, eventUrl(1));
    assert.match(before, /First1/);
    await importInto(ctx(), c.id, { profiles: [profile(1, { first_name: 'Renamed' }), profile(2, { first_name: 'Mentioned' })] });
    const after = await body(ctx(), c.auth, eventUrl(1));
    assert.match(after, /Renamed/);
    assert.match(after, /Mentioned Last2/, 'the reference to U00000002 shows the new preferred name');
    assert.doesNotMatch(after, /First1/);
    assert.equal(after, await uncached(ctx(), c.auth, eventUrl(1)));

    const deleted = await ctx().request({ method: 'DELETE', url: eventUrl(1), headers: c.auth });
    assert.equal(deleted.statusCode, 200);
    const gone = await ctx().request({ method: 'GET', url: eventUrl(1), headers: c.auth });
    assert.equal(gone.statusCode, 404);
  });

  it('moves an event from upcoming to past as the clock passes its end', async () => {
    const c = await seeded();
    const ids = async (query: string) =>
      (
        JSON.parse(await body(ctx(), c.auth, `/admin/v0/calendar_events${query}`)) as { data: { records: { id: string }[] } }
      ).data.records.map((r) => r.id);
    assert.deepEqual(await ids('?time_filter=upcoming'), [eventId(1), eventId(2)]);
    assert.deepEqual(await ids('?time_filter=past'), []);
    const base = ctx().clock.now();
    ctx().clock.set(base + 2 * hour); // event 1 ends exactly now: still upcoming
    assert.deepEqual(await ids('?time_filter=upcoming'), [eventId(1), eventId(2)]);
    ctx().clock.set(base + 2 * hour + 1);
    assert.deepEqual(await ids('?time_filter=upcoming'), [eventId(2)]);
    assert.deepEqual(await ids('?time_filter=past'), [eventId(1)]);
    ctx().clock.set(base);
  });

  it('sees a write made through another instance on its next read', async () => {
    const c = await seeded();
    assert.equal((await ctx().request({ method: 'GET', url: eventUrl(2), headers: c.auth })).statusCode, 200);
    const postsBefore = await body(ctx(), c.auth, '/admin/v0/feeds/home/posts');
    const other = await buildApp({ config: testConfig(), database: ctx().database, clock: ctx().clock, logger: false });
    try {
      const res = await other.inject({ method: 'DELETE', url: eventUrl(2), headers: c.auth });
      assert.equal(res.statusCode, 200, res.body);
    } finally {
      await other.close();
    }
    assert.equal((await ctx().request({ method: 'GET', url: eventUrl(2), headers: c.auth })).statusCode, 404);

    await importInto(ctx(), c.id, {
      posts: [{ id: 'p-1', feed_id: uuid(1, 2), author_profile_id: uuid(1, 1), title: 'Fresh post' }],
    });
    const postsAfter = await body(ctx(), c.auth, '/admin/v0/feeds/home/posts');
    assert.notEqual(postsAfter, postsBefore);
    assert.match(postsAfter, /Fresh post/);
  });

  it('keeps communities apart: the same URL answers each community its own data', async () => {
    const a = await seeded();
    const b = await ctx().community();
    assert.match(await body(ctx(), a.auth, '/admin/v0/calendar_events'), /Event 1/);
    const other = JSON.parse(await body(ctx(), b.auth, '/admin/v0/calendar_events')) as { data: { total_records: number } };
    assert.equal(other.data.total_records, 0);
  });
});
