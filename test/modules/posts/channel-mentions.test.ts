// What a page's mentions resolve to, read for the whole page at once (one statement on PostgreSQL,
// src/references/related-rows.ts): a channel that two feeds share is the oldest feed's, unknown
// users and channels are left out, and each post gets its own references.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import * as fx from '../../support/feed-fixtures.js';
import { describeEachEngine } from '../../support/harness.js';

const mentioning = (...elements: ReturnType<typeof fx.text>[]) => ({
  chat_message: { blocks: [fx.block(fx.section(fx.text('See '), ...elements))] },
});

describeEachEngine('posts: mentions resolved for the page at once', (ctx) => {
  let auth: fx.Auth;

  before(async () => {
    const community = await ctx().community();
    auth = community.auth;
    await fx.importInto(ctx(), community.id, {
      profiles: [fx.profile(1), fx.profile(2, { preferred_name: 'Grace' })],
      feeds: [
        fx.feed(1),
        // Feeds 7 and 8 share one channel; 8 is the older one and must win.
        fx.feed(7, { chat_channel_id: 'CSHARED', created_at: '2026-02-01T00:00:00Z' }),
        fx.feed(8, { chat_channel_id: 'CSHARED', created_at: '2026-01-01T00:00:00Z' }),
      ],
      posts: [
        fx.post(1, 1, {
          content_created_at: '2026-03-02T00:00:00Z',
          ...mentioning(fx.channel('CSHARED'), fx.user('U2'), fx.user('UNOBODY')),
        }),
        fx.post(2, 1, { content_created_at: '2026-03-01T00:00:00Z', ...mentioning(fx.channel('C1'), fx.channel('CNOWHERE')) }),
      ],
    });
  });

  it('gives each post its own references; a shared channel is its oldest feed; unknown ones are left out', async () => {
    const { status, body } = await fx.listPosts(ctx(), auth, fx.feedId(1));
    assert.equal(status, 200);
    const byId = new Map(body.data.records.map((record) => [record.id, record.references as Record<string, unknown>]));
    const first = byId.get(fx.postId(1));
    assert.deepEqual(first?.mentioned_chat_users, [{ profile_id: fx.profileId(2), preferred_name: 'Grace', chat_user_id: 'U2' }]);
    assert.deepEqual(
      (first?.mentioned_chat_channels as { feed: { id: string } }[]).map((mention) => mention.feed.id),
      [fx.feedId(8)],
    );
    const second = byId.get(fx.postId(2));
    assert.deepEqual(second?.mentioned_chat_users, []);
    assert.deepEqual(
      (second?.mentioned_chat_channels as { feed: { id: string } }[]).map((mention) => mention.feed.id),
      [fx.feedId(1)],
    );
  });
});
