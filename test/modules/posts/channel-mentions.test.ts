// What a page's mentions resolve to, read for the whole page at once (one statement on PostgreSQL,
// src/references/related-rows.ts): a channel that two feeds share is the oldest feed's, unknown
// users and channels are left out, and each post gets its own references.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import {
  type Auth,
  block,
  channel,
  feed,
  feedId,
  importInto,
  listPosts,
  post,
  postId,
  profile,
  profileId,
  section,
  text,
  user,
} from '../../support/feed-fixtures.js';
import { describeEachEngine } from '../../support/harness.js';

const mentioning = (...elements: ReturnType<typeof text>[]) => ({ chat_message: { blocks: [block(section(text('See '), ...elements))] } });

describeEachEngine('posts: mentions resolved for the page at once', (ctx) => {
  let auth: Auth;

  before(async () => {
    const community = await ctx().community();
    auth = community.auth;
    await importInto(ctx(), community.id, {
      profiles: [profile(1), profile(2, { preferred_name: 'Grace' })],
      feeds: [
        feed(1),
        // Feeds 7 and 8 share one channel; 8 is the older one and must win.
        feed(7, { chat_channel_id: 'CSHARED', created_at: '2026-02-01T00:00:00Z' }),
        feed(8, { chat_channel_id: 'CSHARED', created_at: '2026-01-01T00:00:00Z' }),
      ],
      posts: [
        post(1, 1, { content_created_at: '2026-03-02T00:00:00Z', ...mentioning(channel('CSHARED'), user('U2'), user('UNOBODY')) }),
        post(2, 1, { content_created_at: '2026-03-01T00:00:00Z', ...mentioning(channel('C1'), channel('CNOWHERE')) }),
      ],
    });
  });

  it('gives each post its own references; a shared channel is its oldest feed; unknown ones are left out', async () => {
    const { status, body } = await listPosts(ctx(), auth, feedId(1));
    assert.equal(status, 200);
    const byId = new Map(body.data.records.map((record) => [record.id, record.references as Record<string, unknown>]));
    const first = byId.get(postId(1));
    assert.deepEqual(first?.mentioned_chat_users, [{ profile_id: profileId(2), preferred_name: 'Grace', chat_user_id: 'U2' }]);
    assert.deepEqual(
      (first?.mentioned_chat_channels as { feed: { id: string } }[]).map((mention) => mention.feed.id),
      [feedId(8)],
    );
    const second = byId.get(postId(2));
    assert.deepEqual(second?.mentioned_chat_users, []);
    assert.deepEqual(
      (second?.mentioned_chat_channels as { feed: { id: string } }[]).map((mention) => mention.feed.id),
      [feedId(1)],
    );
  });
});
