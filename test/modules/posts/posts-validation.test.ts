import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { type Auth, feed, feedId, idsOf, importInto, listPosts, post, postId, profile } from '../../support/feed-fixtures.js';
import { describeEachEngine } from '../../support/harness.js';

describeEachEngine('posts: validation, 404 and isolation', (ctx) => {
  let auth: Auth;
  let otherAuth: Auth;

  before(async () => {
    const community = await ctx().community();
    auth = community.auth;
    await importInto(ctx(), community.id, { profiles: [profile(1)], feeds: [feed(1)], posts: [post(1, 1), post(2, 1)] });
    const other = await ctx().community('growth', 'Other');
    otherAuth = other.auth;
    await importInto(ctx(), other.id, {
      profiles: [profile(1)],
      feeds: [feed(2)],
      posts: [post(3, 2), post(1, 2, { title: 'Same id, other community' })],
    });
  });

  const badQueries: [string, string][] = [
    ['page=-1', 'page'],
    ['page=abc', 'page'],
    ['page=1.5', 'page'],
    ['page=2147483648', 'page'],
    ['per_page=0', 'per_page'],
    ['per_page=51', 'per_page'],
    ['per_page=ten', 'per_page'],
    ['per_page=2.5', 'per_page'],
    ['sort=popular', 'sort'],
    ['sort=NEWEST', 'sort'],
    ['sort=', 'sort'],
  ];
  for (const [query, field] of badQueries) {
    it(`answers 400 validation_failed naming ${field} for ?${query}`, async () => {
      const { status, body } = await listPosts(ctx(), auth, feedId(1), query);
      assert.equal(status, 400);
      assert.equal(body.success, false);
      assert.equal(body.error?.code, 'validation_failed');
      assert.match(body.error?.message ?? '', new RegExp(`query\\.${field}\\b`));
    });
  }

  it('accepts the bounds: page 0, per_page 1 and 50', async () => {
    for (const query of ['page=0&per_page=1', 'per_page=50']) {
      const { status } = await listPosts(ctx(), auth, feedId(1), query);
      assert.equal(status, 200, query);
    }
  });

  it('answers 400 naming feed_id for a feed id that is neither a UUID nor "home"', async () => {
    for (const bad of ['nope', 'HOMEPAGE', '123', `urn:uuid:${feedId(1)}`]) {
      const { status, body } = await listPosts(ctx(), auth, encodeURIComponent(bad));
      assert.equal(status, 400, bad);
      assert.equal(body.error?.code, 'validation_failed');
      assert.match(body.error?.message ?? '', /path\.feed_id: must be a UUID or "home"/);
    }
  });

  it("answers 404 not_found for an unknown feed and for another community's feed", async () => {
    for (const id of [feedId(404), feedId(2)]) {
      const { status, body } = await listPosts(ctx(), auth, id);
      assert.equal(status, 404, id);
      assert.equal(body.error?.code, 'not_found');
    }
  });

  it('keeps each community to its own posts, also on the Home feed and for a shared post id', async () => {
    assert.deepEqual(idsOf((await listPosts(ctx(), auth, 'home', 'sort=oldest')).body.data).sort(), [postId(1), postId(2)]);
    const other = (await listPosts(ctx(), otherAuth, 'home')).body.data;
    assert.deepEqual(idsOf(other).sort(), [postId(1), postId(3)]);
    assert.equal(other.records.find((record) => record.id === postId(1))?.title, 'Same id, other community');
    assert.equal((await listPosts(ctx(), otherAuth, feedId(1))).status, 404);
  });

  it('accepts an upper-case feed id', async () => {
    const { status, body } = await listPosts(ctx(), auth, feedId(1).toUpperCase());
    assert.equal(status, 200);
    assert.equal(body.data.total_records, 2);
  });

  it('answers 401 without a key and 405 for another method', async () => {
    assert.equal((await ctx().request({ method: 'GET', url: `/admin/v0/feeds/${feedId(1)}/posts` })).statusCode, 401);
    const res = await ctx().request({ method: 'DELETE', url: `/admin/v0/feeds/${feedId(1)}/posts`, headers: auth });
    assert.equal(res.statusCode, 405);
  });

  it('documents both operations with their error statuses in the OpenAPI document', async () => {
    const res = await ctx().request({ method: 'GET', url: '/admin/v0/openapi.json' });
    const paths = res.json<{ paths: Record<string, Record<string, { responses: Record<string, unknown> }>> }>().paths;
    for (const path of ['/admin/v0/feeds/{feed_id}', '/admin/v0/feeds/{feed_id}/posts']) {
      assert.deepEqual(
        Object.keys(paths[path]?.get?.responses ?? {}).sort(),
        ['200', '400', '401', '403', '404', '429', '500', '503'],
        path,
      );
    }
  });
});
