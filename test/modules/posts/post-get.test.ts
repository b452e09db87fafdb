import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { createApiKey } from '../../../src/modules/api-keys/api-keys.commands.js';
import * as fx from '../../support/feed-fixtures.js';
import { describeEachEngine } from '../../support/harness.js';

interface ErrorBody {
  error: { code: string; message: string };
}

describeEachEngine('GET /admin/v0/posts/{post_id}', (ctx) => {
  let auth: fx.Auth;
  let communityId = '';
  let other: fx.Auth;

  before(async () => {
    const community = await ctx().community();
    auth = community.auth;
    communityId = community.id;
    await fx.importInto(ctx(), community.id, {
      profiles: [fx.profile(1), fx.profile(2)],
      feeds: [fx.feed(1), fx.feed(2)],
      posts: [
        fx.post(1, 1, { chat_message: { blocks: [fx.block(fx.section(fx.text('Hi '), fx.user('U2')))] } }),
        fx.post(2, 2, { title: 'Second' }),
        fx.post(3, 1, { title: 'Third' }),
      ],
    });
    const second = await ctx().community('enterprise', 'Other');
    other = second.auth;
    await fx.importInto(ctx(), second.id, {
      profiles: [fx.profile(9)],
      feeds: [fx.feed(9)],
      posts: [fx.post(99, 9, { author_profile_id: fx.profileId(9) })],
    });
  });

  it('answers each post byte for byte as the lists show it', async () => {
    const listed = await fx.listPosts(ctx(), auth, 'home', 'per_page=50');
    assert.equal(listed.body.data.records.length, 3);
    for (const record of listed.body.data.records as unknown as { id: string }[]) {
      const res = await ctx().request({ method: 'GET', url: `/admin/v0/posts/${encodeURIComponent(record.id)}`, headers: auth });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json<{ success: boolean; data: unknown }>(), { success: true, data: record });
    }
  });

  it("answers 404 for another community's post and for an unknown id", async () => {
    for (const [id, headers] of [
      [fx.postId(99), auth],
      [fx.postId(1), other],
      ['no-such-post', auth],
    ] as const) {
      const res = await ctx().request({ method: 'GET', url: `/admin/v0/posts/${id}`, headers });
      assert.equal(res.statusCode, 404, `${id}: ${res.body}`);
      assert.equal(res.json<ErrorBody>().error.code, 'not_found');
    }
  });

  it('shows an import at once (the cached answer follows the posts version)', async () => {
    const first = await ctx().request({ method: 'GET', url: `/admin/v0/posts/${fx.postId(2)}`, headers: auth });
    assert.equal(first.json<{ data: { title: string } }>().data.title, 'Second');
    await fx.importInto(ctx(), communityId, { posts: [fx.post(2, 2, { title: 'Second, edited' })] });
    const again = await ctx().request({ method: 'GET', url: `/admin/v0/posts/${fx.postId(2)}`, headers: auth });
    assert.equal(again.json<{ data: { title: string } }>().data.title, 'Second, edited');
  });

  it('needs feeds:read', async () => {
    const key = await createApiKey(
      { database: ctx().database, clock: ctx().clock, communityId },
      { label: 'events only', permissions: new Set(['calendar_events:read']) },
    );
    const res = await ctx().request({
      method: 'GET',
      url: `/admin/v0/posts/${fx.postId(1)}`,
      headers: { authorization: `Bearer ${key.key}` },
    });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json<ErrorBody>().error.code, 'insufficient_scope');
    assert.match(res.json<ErrorBody>().error.message, /feeds:read/);
  });
});
