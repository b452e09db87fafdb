import assert from 'node:assert/strict';
import { it } from 'node:test';
import { feed, feedId, idsOf, importInto, listPosts, post, postId, profile, walkPages } from '../../support/feed-fixtures.js';
import { describeEachEngine } from '../../support/harness.js';

const at = (n: number) => ({ content_created_at: new Date(Date.parse('2026-03-01T00:00:00Z') + n * 60_000).toISOString() });

/** Four feeds: 1 open, 2 archived, 3 unlisted, 4 both; two posts each (post 10f+1, 10f+2). */
function community4() {
  return {
    profiles: [profile(1)],
    feeds: [feed(1), feed(2, { is_archived: true }), feed(3, { is_unlisted: true }), feed(4, { is_archived: true, is_unlisted: true })],
    posts: [1, 2, 3, 4].flatMap((f) => [post(10 * f + 1, f, at(10 * f + 1)), post(10 * f + 2, f, at(10 * f + 2))]),
  };
}

describeEachEngine('posts: the Home feed', (ctx) => {
  it('lists the posts of every feed that is neither archived nor unlisted, newest first', async () => {
    const community = await ctx().community();
    await importInto(ctx(), community.id, {
      ...community4(),
      feeds: [...community4().feeds, feed(5)],
      posts: [...community4().posts, post(51, 5, at(51))],
    });
    const { status, body } = await listPosts(ctx(), community.auth, 'home');
    assert.equal(status, 200);
    assert.deepEqual(idsOf(body.data), [postId(51), postId(12), postId(11)]);
    assert.equal(body.data.total_records, 3);
    assert.deepEqual(
      body.data.records.map((record) => (record.feed as { id: string }).id),
      [feedId(5), feedId(1), feedId(1)],
    );
  });

  it('still lists archived and unlisted feeds by their own id', async () => {
    const community = await ctx().community();
    await importInto(ctx(), community.id, community4());
    for (const f of [2, 3, 4]) {
      const { body } = await listPosts(ctx(), community.auth, feedId(f), 'sort=oldest');
      assert.deepEqual(idsOf(body.data), [postId(10 * f + 1), postId(10 * f + 2)], `feed ${f}`);
    }
  });

  it("moves a feed's posts out of Home when a re-import archives or unlists it, and back in when it is restored", async () => {
    const community = await ctx().community();
    const home = async () => idsOf((await listPosts(ctx(), community.auth, 'home', 'sort=oldest')).body.data);
    await importInto(ctx(), community.id, community4());
    assert.deepEqual(await home(), [postId(11), postId(12)]);

    await importInto(ctx(), community.id, { feeds: [feed(1, { is_archived: true }), feed(2, { is_archived: false })] });
    assert.deepEqual(await home(), [postId(21), postId(22)], 'feed 1 archived, feed 2 restored');

    await importInto(ctx(), community.id, { feeds: [feed(2, { is_unlisted: true }), feed(3, { is_unlisted: false })] });
    assert.deepEqual(await home(), [postId(31), postId(32)], 'feed 2 unlisted, feed 3 listed');

    await importInto(ctx(), community.id, { feeds: [feed(4, { is_archived: false, is_unlisted: true })] });
    assert.deepEqual(await home(), [postId(31), postId(32)], 'feed 4 is still unlisted');

    // A re-imported record replaces the stored one: flags it leaves out are false again.
    await importInto(ctx(), community.id, { feeds: [feed(1), feed(2), feed(3), feed(4)] });
    assert.deepEqual(await home(), [11, 12, 21, 22, 31, 32, 41, 42].map(postId), 'every feed open');
  });

  it('puts posts imported later into Home according to their feed, also when the feed flips in the same file', async () => {
    const community = await ctx().community();
    await importInto(ctx(), community.id, { profiles: [profile(1)], feeds: [feed(1), feed(2)] });
    await importInto(ctx(), community.id, {
      feeds: [feed(2, { is_archived: true })],
      posts: [post(1, 1, at(1)), post(2, 2, at(2))],
    });
    assert.deepEqual(idsOf((await listPosts(ctx(), community.auth, 'home')).body.data), [postId(1)]);
  });

  it('pages through Home with no repeat and no gap under ties, for every sort', async () => {
    const community = await ctx().community();
    const tie = { content_created_at: '2026-04-01T00:00:00Z', latest_activity_at: '2026-04-02T00:00:00Z' };
    await importInto(ctx(), community.id, {
      profiles: [profile(1)],
      feeds: [feed(1), feed(2), feed(3, { is_archived: true })],
      posts: Array.from({ length: 30 }, (_, i) => post(i + 1, (i % 3) + 1, tie)),
    });
    const open = Array.from({ length: 30 }, (_, i) => i + 1)
      .filter((n) => (n - 1) % 3 !== 2)
      .map(postId);
    for (const sort of ['newest', 'most-recent-activity']) {
      assert.deepEqual(await walkPages(ctx(), community.auth, 'home', `sort=${sort}`, 3), [...open].reverse(), sort);
    }
    assert.deepEqual(await walkPages(ctx(), community.auth, 'home', 'sort=oldest', 7), open);
  });

  it('answers an empty Home for a community without feeds', async () => {
    const community = await ctx().community();
    const { status, body } = await listPosts(ctx(), community.auth, 'home');
    assert.equal(status, 200);
    assert.deepEqual(body.data, { page: 0, per_page: 10, count: 0, total_records: 0, total_pages: 0, has_next: false, records: [] });
  });
});
