/**
 * The cost budget (policy "cost", docs/idempotency-and-rate-limits.md): a key sending expensive
 * searches is refused with 429 and the RateLimit fields naming the policy, while another key's
 * requests, and the same key's cheap requests, pass; a cached answer costs nothing. On both engines,
 * with the memory store and (TEST_REDIS_URL) with Redis.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createApiKey } from '../../src/modules/api-keys/api-keys.commands.js';
import * as fx from '../support/feed-fixtures.js';
import { describeEachEngine, redisSkipReason, redisUrl, type TestApp, uniqueRedisPrefix } from '../support/harness.js';

/** 1,100 posts with the word `pizza`: a search for it ranks 1,100 matches, 1 + 2 = 3 units. */
const corpus = {
  profiles: [fx.profile(1)],
  feeds: [fx.feed(1)],
  posts: Array.from({ length: 1100 }, (_, i) => fx.post(i + 1, 1, { title: `Evening ${i}`, body_plaintext: `pizza number ${i}` })),
};

type Auth = { authorization: string };

function costSuite(name: string, env: Record<string, string>, skip: string | false = false): void {
  describe(name, { skip }, () => {
    describeEachEngine(
      'cost budget',
      (ctx) => {
        let t: TestApp;
        let a: Auth;
        let b: Auth;
        let other: Auth;
        before(async () => {
          t = ctx();
          const community = await t.community();
          a = community.auth;
          const second = await createApiKey({ database: t.database, clock: t.clock, communityId: community.id }, { label: 'second' });
          b = { authorization: `Bearer ${second.key}` };
          other = (await t.community()).auth;
          await fx.importInto(t, community.id, corpus);
          // The next window: what the import's requests and earlier suites spent is behind.
          t.clock.advance(1000);
        });
        const searchAs = (auth: Auth, q = 'pizza') => t.request({ method: 'GET', url: `/admin/v0/search?q=${q}`, headers: auth });

        it('refuses a key whose searches spent its budget, with 429, Retry-After and the cost policy, while other keys pass', async () => {
          const first = await searchAs(a);
          assert.equal(first.statusCode, 200);
          assert.equal(first.json<{ data: { total_records: number } }>().data.total_records, 1100);
          assert.equal(first.headers['ratelimit-policy'], '"key";q=100000;w=1, "cost";q=7;w=1');
          // Charged one unit before it ran (its cost was not known yet), three once it had.
          assert.equal(first.headers.ratelimit, '"key";r=99999;t=1, "cost";r=6;t=1');
          assert.equal((await searchAs(a)).headers.ratelimit, '"key";r=99998;t=1, "cost";r=1;t=1', '3 + 3 of 7');
          // Spent 6 of 7: this one still runs (the budget was not spent before it) and overspends it.
          assert.equal((await searchAs(a)).statusCode, 200);
          const refused = await searchAs(a);
          assert.equal(refused.statusCode, 429);
          assert.equal(refused.json<{ error: { code: string } }>().error.code, 'rate_limited');
          assert.equal(refused.headers['retry-after'], '1');
          assert.equal(refused.headers['ratelimit-policy'], '"key";q=100000;w=1, "cost";q=7;w=1');
          assert.equal(refused.headers.ratelimit, '"key";r=99996;t=1, "cost";r=0;t=1');
          assert.equal(refused.headers['ratelimit-limit'], '7', 'the older fields name the budget that refused');
          assert.equal(refused.headers['ratelimit-remaining'], '0');
          assert.equal(refused.headers['ratelimit-reset'], '1');

          assert.equal((await searchAs(b)).statusCode, 200, 'another key of the same community');
          assert.equal((await searchAs(other)).statusCode, 200, 'a key of another community');
          const cheap = await t.request({ method: 'GET', url: '/admin/v0/feeds/home/posts', headers: a });
          assert.equal(cheap.statusCode, 200, 'the refused key still reads pages: only costed requests spend the cost budget');
          assert.equal(cheap.headers.ratelimit, '"key";r=99995;t=1', 'no cost policy where nothing is costed');

          t.clock.advance(1000);
          assert.equal((await searchAs(a)).statusCode, 200, 'the next window');
        });

        it('counts a search that matches little as one unit', async () => {
          t.clock.advance(1000);
          const statuses: number[] = [];
          for (let i = 0; i < 7; i++) statuses.push((await searchAs(a, 'number%20417')).statusCode);
          assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 200]);
          assert.equal((await searchAs(a, 'number%20417')).statusCode, 429, 'the eighth unit of seven');
        });
      },
      // Every search ranked anew: a repeated search costs what its first did.
      { env: { RATE_LIMIT_COST_PER_SECOND: '7', RESPONSE_CACHE_MB: '0', SEARCH_RANKINGS_MB: '0', ...env } },
    );

    describeEachEngine(
      'cost budget with ranked lists kept',
      (ctx) => {
        it('charges a page cut from a kept ranked list one unit, and ranks again (at full cost) after a write', async () => {
          const t = ctx();
          const community = await t.community();
          await fx.importInto(t, community.id, corpus);
          t.clock.advance(1000);
          const searchAs = (page: number) =>
            t.request({ method: 'GET', url: `/admin/v0/search?q=pizza&page=${page}`, headers: community.auth });
          // The fields show each search's admission: charged what the same search cost last time, settled at what it cost.
          const first = await searchAs(0);
          assert.equal(first.headers.ratelimit, '"key";r=99999;t=1, "cost";r=6;t=1', 'admitted at one unit; 1,100 matches ranked: 3');
          const again = await searchAs(0);
          assert.equal(again.body, first.body, 'the same answer, cut from the kept list');
          assert.equal(again.headers.ratelimit, '"key";r=99998;t=1, "cost";r=1;t=1', 'admitted at 3 (3 + 3 of 7), settled at 1');
          const next = await searchAs(1);
          assert.equal(next.headers.ratelimit, '"key";r=99997;t=1, "cost";r=2;t=1', 'admitted at 1 (4 + 1 of 7): a page read by id');
          t.clock.advance(1000);
          await fx.importInto(t, community.id, { posts: [fx.post(9001, 1, { title: 'Pizza, new' })] });
          t.clock.advance(1000);
          const after = await searchAs(0);
          assert.equal(after.json<{ data: { total_records: number } }>().data.total_records, 1101, 'the write is seen');
          assert.equal(after.headers.ratelimit, '"key";r=99999;t=1, "cost";r=6;t=1', 'admitted at 1');
          const ranked = await searchAs(0);
          assert.equal(
            ranked.headers.ratelimit,
            '"key";r=99998;t=1, "cost";r=1;t=1',
            'admitted at 3: the search after the write ranked again',
          );
        });
      },
      { env: { RATE_LIMIT_COST_PER_SECOND: '7', RESPONSE_CACHE_MB: '0', ...env } },
    );

    describeEachEngine(
      'cost budget with the response cache',
      (ctx) => {
        it('charges nothing for an answer served from the cache', async () => {
          const t = ctx();
          const community = await t.community();
          await fx.importInto(t, community.id, corpus);
          t.clock.advance(1000);
          const statuses: number[] = [];
          for (let i = 0; i < 10; i++) {
            const res = await t.request({ method: 'GET', url: '/admin/v0/search?q=pizza', headers: community.auth });
            statuses.push(res.statusCode);
          }
          assert.deepEqual(statuses, Array(10).fill(200), 'one search ranked (3 units of 7), nine cached answers');
        });
      },
      { env: { RATE_LIMIT_COST_PER_SECOND: '7', ...env } },
    );

    describeEachEngine(
      'heavy searches take turns',
      (ctx) => {
        it('answers concurrent heavy searches of two keys, one after the other (off the event loop on SQLite), byte for byte as before', async () => {
          const t = ctx();
          const community = await t.community();
          const second = await createApiKey({ database: t.database, clock: t.clock, communityId: community.id }, { label: 'second' });
          // 2,600 matches: 6 units, heavy (5 or more) once its cost is known.
          await fx.importInto(t, community.id, {
            ...corpus,
            posts: Array.from({ length: 2600 }, (_, i) => fx.post(i + 1, 1, { body_plaintext: `olive ${i}` })),
          });
          t.clock.advance(1000);
          const searchAs = (auth: string, page: number) =>
            t.request({ method: 'GET', url: `/admin/v0/search?q=olive&page=${page}`, headers: { authorization: `Bearer ${auth}` } });
          const light = await searchAs(community.key, 0);
          assert.equal(light.statusCode, 200);
          const answers = await Promise.all([0, 1, 2, 3].map((page) => searchAs(page % 2 ? second.key : community.key, page)));
          assert.deepEqual(
            answers.map((res) => [res.statusCode, res.json<{ data: { total_records: number } }>().data.total_records]),
            Array(4).fill([200, 2600]),
          );
          // Heavy, it ran off the event loop on SQLite (its read thread): the same bytes as the light run on the main connection.
          assert.equal(answers[0]?.body, light.body);
          assert.equal((await searchAs(community.key, 5)).statusCode, 200, 'every turn was given back');
        });
      },
      { env: { RATE_LIMIT_COST_PER_SECOND: '1000', RESPONSE_CACHE_MB: '0', SEARCH_RANKINGS_MB: '0', ...env } },
    );
  });
}

costSuite('cost budget in memory', {});
costSuite(
  'cost budget in Redis',
  { REDIS_URL: redisUrl || 'redis://unused', REDIS_KEY_PREFIX: uniqueRedisPrefix('cost') },
  redisSkipReason,
);
