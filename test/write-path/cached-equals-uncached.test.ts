// After any sequence of writes through the public surface (HTTP and the import), every cached
// answer equals the answer of an app without caches on the same database. The cached app answers
// every read before and after each write, so that a write that left a cached answer (or a cached
// total) behind would show here as a difference.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { CountCache } from '../../src/caching/count-cache.js';
import { runImport } from '../../src/import/run-import.js';
import { describeEachEngine, testConfig } from '../support/harness.js';

/** Counts computed on every request: the uncached app's totals cannot be stale. */
class NoCountCache extends CountCache {
  override async total(
    _database: unknown,
    _communityId: string,
    _column: unknown,
    _key: string,
    _now: number,
    compute: () => Promise<{ count: number; validUntil: number }>,
  ): Promise<number> {
    return (await compute()).count;
  }
}

const hour = 60 * 60 * 1000;
const start = Date.parse('2026-11-21T12:00:00.000Z');
const profileId = (n: number) => `a0000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const feedId = (n: number) => `f0000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const eventId = (n: number) => `ev${String(n).padStart(10, '0')}`;
const postId = (n: number) => `post-${n}`;
const mention = (n: number) => [
  { type: 'rich_text', elements: [{ type: 'rich_text_section', elements: [{ type: 'user', user_id: `U${n}` }] }] },
];

const profileRecord = (n: number, version = 0) => ({
  profile_id: profileId(n),
  email: `person${n}@example.org`,
  first_name: `First${n}v${version}`,
  last_name: `Last${n}`,
  chat_user_id: `U${n}`,
});
const feedRecord = (n: number, variant = 0) => ({
  id: feedId(n),
  label: `Feed ${n} v${variant}`,
  slug: `feed-${n}`,
  is_unlisted: variant % 3 === 1,
  is_archived: variant % 3 === 2,
});
const postRecord = (n: number, feed: number, variant = 0) => ({
  id: postId(n),
  feed_id: feedId(feed),
  author_profile_id: profileId(1 + (n % 3)),
  title: `Post ${n} v${variant}`,
  content_created_at: new Date(start - n * hour + variant * 60_000).toISOString(),
  chat_message: { blocks: mention(1 + ((n + variant) % 4)) },
});
/** Events start around the test's start, so that the clock moving makes some leave "upcoming". */
const eventRecord = (n: number, offsetHours: number, variant = 0) => {
  const at = start + offsetHours * hour;
  return {
    id: eventId(n),
    title: `Event ${n} v${variant}`,
    status: variant % 4 === 3 ? 'draft' : 'published',
    start_date: new Date(at).toISOString(),
    end_date: new Date(at + hour).toISOString(),
    host_profile_ids: [profileId(1 + (n % 4))],
    published_to: [{ feed_id: feedId(1 + (n % 2)) }],
    description_chat_blocks: mention(1 + ((n + variant) % 4)),
  };
};

const world = {
  profiles: [1, 2, 3, 4].map((n) => profileRecord(n)),
  groups: [{ id: 'g1', name: 'Group 1', member_profile_ids: [profileId(1)] }],
  feeds: [1, 2, 3].map((n) => feedRecord(n)),
  posts: [1, 2, 3, 4, 5].map((n) => postRecord(n, 1 + (n % 3))),
  calendar_events: [1, 2, 3, 4, 5].map((n) => eventRecord(n, n * 3 - 8)),
};

type Action =
  | { kind: 'attendee'; event: number; profile: number; link: string | null | undefined }
  | { kind: 'deleteEvent'; event: number }
  | { kind: 'addMember'; person: number; name: string }
  | { kind: 'deactivateMember'; person: number }
  | { kind: 'addToGroup'; profile: number }
  | { kind: 'importEvent'; event: number; offsetHours: number; variant: number }
  | { kind: 'importPost'; post: number; feed: number; variant: number }
  | { kind: 'importFeed'; feed: number; variant: number }
  | { kind: 'importProfile'; profile: number; version: number }
  | { kind: 'advanceClock'; ms: number };

const actions: fc.Arbitrary<Action> = fc.oneof(
  fc.record({
    kind: fc.constant('attendee' as const),
    event: fc.integer({ min: 1, max: 7 }),
    profile: fc.integer({ min: 1, max: 5 }),
    link: fc.constantFrom(undefined, null, '', 'https://meet.example.org/a', 'https://meet.example.org/b'),
  }),
  fc.record({ kind: fc.constant('deleteEvent' as const), event: fc.integer({ min: 1, max: 7 }) }),
  fc.record({
    kind: fc.constant('addMember' as const),
    person: fc.integer({ min: 1, max: 6 }),
    name: fc.constantFrom('Ada Lovelace', 'Bo'),
  }),
  fc.record({ kind: fc.constant('deactivateMember' as const), person: fc.integer({ min: 1, max: 6 }) }),
  fc.record({ kind: fc.constant('addToGroup' as const), profile: fc.integer({ min: 1, max: 5 }) }),
  fc.record({
    kind: fc.constant('importEvent' as const),
    event: fc.integer({ min: 1, max: 7 }),
    offsetHours: fc.integer({ min: -10, max: 10 }),
    variant: fc.integer({ min: 0, max: 7 }),
  }),
  fc.record({
    kind: fc.constant('importPost' as const),
    post: fc.integer({ min: 1, max: 7 }),
    feed: fc.integer({ min: 1, max: 3 }),
    variant: fc.integer({ min: 0, max: 5 }),
  }),
  fc.record({ kind: fc.constant('importFeed' as const), feed: fc.integer({ min: 1, max: 3 }), variant: fc.integer({ min: 0, max: 5 }) }),
  fc.record({
    kind: fc.constant('importProfile' as const),
    profile: fc.integer({ min: 1, max: 4 }),
    version: fc.integer({ min: 1, max: 3 }),
  }),
  fc.record({ kind: fc.constant('advanceClock' as const), ms: fc.constantFrom(60_000, hour, 3 * hour, 24 * hour) }),
);

/** Every cached read of the API, over the records the world and the actions can make. */
const reads = [
  '/admin/v0/calendar_events',
  '/admin/v0/calendar_events?time_filter=past',
  '/admin/v0/calendar_events?time_filter=all&per_page=2',
  '/admin/v0/calendar_events?time_filter=all&per_page=2&page=1',
  '/admin/v0/calendar_events?status=draft&time_filter=all',
  `/admin/v0/calendar_events?time_filter=all&feed_id=${feedId(1)}`,
  ...[1, 2, 3, 4, 5, 6].map((n) => `/admin/v0/calendar_events/${eventId(n)}`),
  '/admin/v0/feeds/home/posts',
  '/admin/v0/feeds/home/posts?sort=oldest&per_page=2&page=1',
  ...[1, 2, 3].map((n) => `/admin/v0/feeds/${feedId(n)}/posts`),
  // Search: titles change with a post's variant, author names with a profile's version, Home with a feed's.
  '/admin/v0/search?q=post',
  '/admin/v0/search?q=v1',
  '/admin/v0/search?q=post&per_page=2&page=1',
  `/admin/v0/search?q=post&feed_id=${feedId(1)}`,
  `/admin/v0/search?q=post&author_profile_id=${profileId(2)}`,
  '/admin/v0/search?q=first2v1',
  '/admin/v0/search?q=first*%20-v2',
];

describeEachEngine('cached answers equal uncached answers after any sequence of writes', (ctx) => {
  let uncached: FastifyInstance;

  before(async () => {
    const { database, clock } = ctx();
    uncached = await buildApp({
      config: testConfig({ RESPONSE_CACHE_MB: '0' }),
      database,
      clock,
      logger: false,
      services: { counts: new NoCountCache() },
    });
    await uncached.ready();
  });
  after(async () => {
    await uncached?.close();
  });

  it('for writes of events, attendees, members, groups and imports of events, posts, feeds and profiles', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(actions, { minLength: 1, maxLength: 8 }), async (steps) => {
        const t = ctx();
        t.clock.set(start);
        const community = await t.community();
        const headers = community.auth;
        const importDoc = (doc: Record<string, unknown>) =>
          runImport({ database: t.database, clock: t.clock, communityId: community.id }, doc);
        const memberIds = new Map<number, string>();

        // The community's calendar feed (GET /calendar/{token}.ics, a cached read without a key).
        const created = await t.request({ method: 'POST', url: '/admin/v0/calendar_feeds', headers, payload: {} });
        const feedUrl = new URL(created.json<{ data: { url: string } }>().data.url).pathname;

        const compareAll = async (after: string) => {
          for (const url of [...reads, feedUrl]) {
            const cached = await t.request({ method: 'GET', url, headers });
            const fresh = await uncached.inject({ method: 'GET', url, headers });
            assert.equal(cached.statusCode, fresh.statusCode, `${url} after ${after}`);
            assert.equal(cached.body, fresh.body, `${url} after ${after}`);
          }
        };

        await importDoc(world);
        await compareAll('the first import');
        for (const step of steps) {
          await apply(step);
          await compareAll(JSON.stringify(step));
        }

        async function apply(step: Action): Promise<void> {
          switch (step.kind) {
            case 'attendee': {
              const body = {
                user: { chat_user_id: `U${step.profile}` },
                ...(step.link === undefined ? {} : { personal_join_link: step.link }),
              };
              const url = `/admin/v0/calendar_events/${eventId(step.event)}/attendees`;
              const res = await t.request({ method: 'PATCH', url, headers, payload: body });
              assert.ok([200, 404].includes(res.statusCode), res.body);
              return;
            }
            case 'deleteEvent': {
              const res = await t.request({ method: 'DELETE', url: `/admin/v0/calendar_events/${eventId(step.event)}`, headers });
              assert.ok([200, 404].includes(res.statusCode), res.body);
              return;
            }
            case 'addMember': {
              // Persons 1-4 have a profile with a chat identity; 5 and 6 do not (those can be deactivated).
              const email = step.person <= 4 ? `person${step.person}@example.org` : `guest${step.person}@example.org`;
              const res = await t.request({ method: 'POST', url: '/admin/v0/members', headers, payload: { email, full_name: step.name } });
              assert.ok([200, 201].includes(res.statusCode), res.body);
              memberIds.set(step.person, res.json<{ data: { id: string } }>().data.id);
              return;
            }
            case 'deactivateMember': {
              const id = memberIds.get(step.person) ?? '00000000-0000-4000-8000-000000000000';
              const res = await t.request({ method: 'POST', url: `/admin/v0/members/${id}/deactivate`, headers });
              assert.ok([200, 404, 409, 422].includes(res.statusCode), res.body);
              return;
            }
            case 'addToGroup': {
              const payload = { user: { chat_user_id: `U${step.profile}` } };
              const res = await t.request({ method: 'POST', url: '/admin/v0/groups/g1/members', headers, payload });
              assert.ok([200, 201, 404].includes(res.statusCode), res.body);
              return;
            }
            case 'importEvent':
              await importDoc({ calendar_events: [eventRecord(step.event, step.offsetHours, step.variant)] });
              return;
            case 'importPost':
              await importDoc({ posts: [postRecord(step.post, step.feed, step.variant)] });
              return;
            case 'importFeed':
              await importDoc({ feeds: [feedRecord(step.feed, step.variant)] });
              return;
            case 'importProfile':
              await importDoc({ profiles: [profileRecord(step.profile, step.version)] });
              return;
            case 'advanceClock':
              t.clock.advance(step.ms);
              return;
          }
        }
      }),
      { numRuns: 6 },
    );
  });
});
