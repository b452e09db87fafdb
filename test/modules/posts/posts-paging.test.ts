import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { type Auth, feed, feedId, idsOf, importInto, listPosts, post, postId, profile, walkPages } from '../../support/feed-fixtures.js';
import { describeEachEngine } from '../../support/harness.js';

// 23 posts of feed 1 whose content_created_at ties in groups of 3 and whose latest_activity_at
// ties in groups of 4, in another order; 5 posts of feed 2 must never show up. Imported in a
// shuffled order so that storage order cannot pass for the sort.
const numbers = Array.from({ length: 23 }, (_, i) => i + 1);
const day = 86_400_000;
const createdAt = (n: number) => Date.parse('2026-01-01T00:00:00Z') + Math.floor((n - 1) / 3) * day;
const activityAt = (n: number) => Date.parse('2026-06-01T00:00:00Z') + Math.floor(((n * 7) % 23) / 4) * day;
const shuffled = [...numbers].sort((a, b) => ((a * 7919) % 29) - ((b * 7919) % 29));

/** The expected order: the sort column, then the id, both in the sort's direction. */
function expected(at: (n: number) => number, direction: 1 | -1): string[] {
  return [...numbers].sort((a, b) => direction * (at(a) - at(b)) || direction * (postId(a) < postId(b) ? -1 : 1)).map(postId);
}

const sorts = {
  newest: expected(createdAt, -1),
  oldest: expected(createdAt, 1),
  'most-recent-activity': expected(activityAt, -1),
};

describeEachEngine('posts: sorting and paging', (ctx) => {
  let auth: Auth;

  before(async () => {
    const community = await ctx().community();
    auth = community.auth;
    await importInto(ctx(), community.id, {
      profiles: [profile(1)],
      feeds: [feed(1), feed(2)],
      posts: [
        ...shuffled.map((n) =>
          post(n, 1, {
            content_created_at: new Date(createdAt(n)).toISOString(),
            latest_activity_at: new Date(activityAt(n)).toISOString(),
          }),
        ),
        ...[101, 102, 103, 104, 105].map((n) => post(n, 2, { content_created_at: '2026-01-05T00:00:00Z' })),
      ],
    });
  });

  for (const [sort, order] of Object.entries(sorts)) {
    it(`sorts by ${sort}, ties broken by id, the same at every page size`, async () => {
      for (const perPage of [1, 4, 10, 23, 50]) {
        assert.deepEqual(await walkPages(ctx(), auth, feedId(1), `sort=${sort}`, perPage), order, `per_page=${perPage}`);
      }
    });
  }

  it('sorts newest first by default and uses per_page 10 by default', async () => {
    const { status, body } = await listPosts(ctx(), auth, feedId(1));
    assert.equal(status, 200);
    assert.equal(body.data.per_page, 10);
    assert.equal(body.data.page, 0);
    assert.deepEqual(idsOf(body.data), sorts.newest.slice(0, 10));
  });

  it('reports the envelope of each page: count, total_records, total_pages, has_next', async () => {
    const seen: string[] = [];
    for (let page = 0; page < 5; page++) {
      const { body } = await listPosts(ctx(), auth, feedId(1), `sort=oldest&per_page=5&page=${page}`);
      const { records, ...envelope } = body.data;
      assert.deepEqual(envelope, { page, per_page: 5, count: page < 4 ? 5 : 3, total_records: 23, total_pages: 5, has_next: page < 4 });
      seen.push(...records.map((record) => String(record.id)));
    }
    assert.deepEqual(seen, sorts.oldest);
    assert.equal(new Set(seen).size, 23, 'no post repeats');
  });

  it('answers a page past the end with no records and has_next false', async () => {
    for (const query of ['per_page=5&page=5', 'per_page=50&page=1', 'page=2147483647']) {
      const { status, body } = await listPosts(ctx(), auth, feedId(1), query);
      assert.equal(status, 200, query);
      assert.equal(body.data.count, 0, query);
      assert.deepEqual(body.data.records, [], query);
      assert.equal(body.data.has_next, false, query);
      assert.equal(body.data.total_records, 23, query);
    }
  });

  it('answers the same page identically twice', async () => {
    const first = await listPosts(ctx(), auth, feedId(1), 'sort=most-recent-activity&per_page=7&page=1');
    const second = await listPosts(ctx(), auth, feedId(1), 'sort=most-recent-activity&per_page=7&page=1');
    assert.deepEqual(first.body, second.body);
  });

  it('lists an empty feed as zero records and zero pages', async () => {
    const community = await ctx().community();
    await importInto(ctx(), community.id, { feeds: [feed(7)] });
    const { status, body } = await listPosts(ctx(), community.auth, feedId(7));
    assert.equal(status, 200);
    assert.deepEqual(body.data, { page: 0, per_page: 10, count: 0, total_records: 0, total_pages: 0, has_next: false, records: [] });
  });

  it('moves a post between feeds when a re-import changes its feed_id', async () => {
    const community = await ctx().community();
    await importInto(ctx(), community.id, { profiles: [profile(1)], feeds: [feed(1), feed(2)], posts: [post(1, 1), post(2, 1)] });
    await importInto(ctx(), community.id, { posts: [post(2, 2)] });
    assert.deepEqual(idsOf((await listPosts(ctx(), community.auth, feedId(1))).body.data), [postId(1)]);
    const moved = (await listPosts(ctx(), community.auth, feedId(2))).body.data.records;
    assert.deepEqual(
      moved.map((record) => [record.id, record.feed_id, (record.feed as { id: string }).id]),
      [[postId(2), feedId(2), feedId(2)]],
    );
  });
});
