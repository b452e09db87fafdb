// A post record shows parts of other rows (its author's profile, its feed, the profiles and feeds it
// mentions), which the server derives once per stored text and reuses (src/shared/derived-once.ts).
// With the response cache off, so that every answer is rendered again: an answer read before and
// after those rows change must show the new parts, on every page that shows the post.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { buildApp } from '../../../src/app.js';
import * as fx from '../../support/feed-fixtures.js';
import { describeEachEngine, testConfig } from '../../support/harness.js';

const mentioning = (...elements: ReturnType<typeof fx.text>[]) => ({
  chat_message: { blocks: [fx.block(fx.section(fx.text('Lighthouse notes, see '), ...elements))] },
});

interface Parts {
  author: { preferred_name: string };
  feed: { label: string; slug: string };
  references: { mentioned_chat_users: { preferred_name: string }[]; mentioned_chat_channels: { feed: { label: string } }[] };
}

/** What the post shows of the other rows (its stored body keeps the names it was written with). */
function partsOf(body: string): string[] {
  const { data } = JSON.parse(body) as { data: Parts | { records: Parts[] } };
  const post = 'records' in data ? data.records[0] : data;
  assert.ok(post);
  return [
    post.author.preferred_name,
    post.feed.label,
    post.feed.slug,
    ...post.references.mentioned_chat_users.map((user) => user.preferred_name),
    ...post.references.mentioned_chat_channels.map((channel) => channel.feed.label),
  ];
}

describeEachEngine('posts: parts from other rows follow their changes', (ctx) => {
  it('shows a renamed author, mentioned profile, mentioned feed and own feed on the next uncached read', async () => {
    const community = await ctx().community();
    const before = {
      profiles: [fx.profile(1, { preferred_name: 'Ada Before' }), fx.profile(2, { preferred_name: 'Grace Before' })],
      feeds: [fx.feed(1, { label: 'Own Feed Before' }), fx.feed(2, { label: 'Mentioned Feed Before' })],
    };
    await fx.importInto(ctx(), community.id, {
      ...before,
      posts: [fx.post(1, 1, { author_profile_id: fx.profileId(1), title: 'Lighthouse', ...mentioning(fx.user('U2'), fx.channel('C2')) })],
    });
    const uncached = await buildApp({
      config: testConfig({ RESPONSE_CACHE_MB: '0' }),
      database: ctx().database,
      clock: ctx().clock,
      logger: false,
    });
    try {
      const urls = [
        '/admin/v0/feeds/home/posts',
        `/admin/v0/feeds/${fx.feedId(1)}/posts`,
        `/admin/v0/posts/${fx.postId(1)}`,
        '/admin/v0/search?q=lighthouse',
      ];
      const read = async (url: string) => {
        const res = await uncached.inject({ method: 'GET', url, headers: community.auth });
        assert.equal(res.statusCode, 200, res.body);
        return res.body;
      };
      for (const url of urls) {
        // Twice: the second answer is rendered from the parts derived for the first.
        const first = await read(url);
        assert.equal(await read(url), first);
        for (const name of ['Ada Before', 'Grace Before', 'Own Feed Before', 'Mentioned Feed Before'])
          assert.match(first, new RegExp(name), url);
      }

      await fx.importInto(ctx(), community.id, {
        profiles: [fx.profile(1, { preferred_name: 'Ada After' }), fx.profile(2, { preferred_name: 'Grace After' })],
        feeds: [fx.feed(1, { label: 'Own Feed After', slug: 'own-after' }), fx.feed(2, { label: 'Mentioned Feed After' })],
      });
      for (const url of urls) {
        const after = await read(url);
        assert.deepEqual(partsOf(after), ['Ada After', 'Own Feed After', 'own-after', 'Grace After', 'Mentioned Feed After'], url);
        // The same bytes as the instance with the response cache, which rendered it after the change.
        const cached = await ctx().request({ method: 'GET', url, headers: community.auth });
        assert.equal(after, cached.body, url);
      }
    } finally {
      await uncached.close();
    }
  });
});
