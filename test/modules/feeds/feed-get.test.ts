import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { FeedSchema } from '../../../src/modules/feeds/feeds.schemas.js';
import * as fx from '../../support/feed-fixtures.js';
import { describeEachEngine } from '../../support/harness.js';

const purposeBlocks = [
  fx.block(
    fx.section(
      fx.text('Talk to '),
      fx.user('U1'),
      fx.text(' in '),
      fx.channel('C2'),
      fx.text(' '),
      fx.emoji('partyparrot'),
      fx.link('https://example.com/a.png'),
    ),
  ),
];
const topicBlocks = [fx.block(fx.section(fx.text('Weekly topic by '), fx.user('U404')))];

/** A feed with every stored field set to something other than its default. */
const fullFeed = fx.feed(1, {
  public_id: 'pub-1',
  created_at: '2026-01-02T03:04:05.000Z',
  updated_at: '2026-02-03T04:05:06.000Z',
  label: 'General',
  slug: 'general',
  emoji_icon: '💬',
  banner_file_id: 'F123',
  banner_file_url: 'https://example.com/banner.png',
  is_archived: true,
  is_unlisted: true,
  list_view_display_format: 'card',
  post_detail_display_format: 'discussion',
  chat_channel_id: 'C1',
  chat_channel_name: 'general',
  chat_channel_num_members: 42,
  chat_channel_is_private: true,
  chat_channel_purpose_chat_blocks: purposeBlocks,
  chat_channel_topic_chat_blocks: topicBlocks,
  show_in_navigation_menu: true,
  is_site_posting_enabled: true,
  visibility: 'disabled',
  sync_all_incoming_messages: true,
  stores_new_messages: true,
  ai_titles_enabled: true,
  show_pinned_posts: true,
  allow_selected_answer: true,
  preset: 'discussion',
});

describeEachEngine('feeds: GET /feeds/{feed_id}', (ctx) => {
  let auth: fx.Auth;
  let otherAuth: fx.Auth;
  let otherFeed: string;

  before(async () => {
    const community = await ctx().community();
    auth = community.auth;
    await fx.importInto(ctx(), community.id, {
      profiles: [fx.profile(1, { preferred_name: 'Ada' })],
      feeds: [
        fullFeed,
        fx.feed(2, { label: 'Random', slug: 'random', public_id: 'pub-2', chat_channel_name: 'random' }),
        { id: fx.feedId(3), label: 'Ünïcode Label!' },
      ],
    });
    const other = await ctx().community('free', 'Other');
    otherAuth = other.auth;
    otherFeed = fx.feedId(9);
    await fx.importInto(ctx(), other.id, { feeds: [fx.feed(9)] });
  });

  it("returns the hosted product's fields with the imported values, the blocks kept verbatim and their references resolved", async () => {
    const { status, body } = await fx.getFeed(ctx(), auth, fx.feedId(1));
    assert.equal(status, 200);
    assert.equal(body.success, true);
    assert.deepEqual(body.data, {
      id: fx.feedId(1),
      label: 'General',
      slug: 'general',
      emoji_icon: '💬',
      banner_file_id: 'F123',
      banner_file_url: 'https://example.com/banner.png',
      is_archived: true,
      is_unlisted: true,
      list_view_display_format: 'card',
      post_detail_display_format: 'discussion',
      chat_channel_id: 'C1',
      chat_channel_name: 'general',
      chat_channel_num_members: 42,
      chat_channel_purpose_chat_blocks: purposeBlocks,
      chat_channel_topic_chat_blocks: topicBlocks,
      chat_channel_purpose_chat_blocks_references: {
        mentioned_chat_users: [{ profile_id: fx.profileId(1), preferred_name: 'Ada', chat_user_id: 'U1' }],
        mentioned_chat_channels: [
          {
            chat_channel: { id: 'C2', name: 'random' },
            feed: { id: fx.feedId(2), label: 'Random', slug: 'random', public_id: 'pub-2', chat_channel: { name: 'random' } },
          },
        ],
        custom_emojis: [{ alias: 'partyparrot', name: 'partyparrot', url: '' }],
        urls: [{ order_seen: 0, is_embedded_media: true, is_image: true, is_video: false, url: 'https://example.com/a.png' }],
      },
      // U404 is nobody of the community: no reference, as for a post.
      chat_channel_topic_chat_blocks_references: { mentioned_chat_users: [], mentioned_chat_channels: [], custom_emojis: [], urls: [] },
      show_in_navigation_menu: true,
      is_site_posting_enabled: true,
    });
    // In the spec's order, as the hosted product answers.
    assert.deepEqual(Object.keys(body.data), Object.keys(FeedSchema.properties));
  });

  it('omits public_id, created_at, updated_at, chat_channel_is_private and every field from visibility onward', async () => {
    const { body } = await fx.getFeed(ctx(), auth, fx.feedId(1));
    for (const field of [
      'public_id',
      'created_at',
      'updated_at',
      'chat_channel_is_private',
      'visibility',
      'sync_all_incoming_messages',
      'stores_new_messages',
      'ai_titles_enabled',
      'show_pinned_posts',
      'allow_selected_answer',
      'preset',
    ]) {
      assert.equal(field in body.data, false, field);
    }
  });

  it('answers null for emoji_icon and the banner when the feed has none, "" or defaults for the rest', async () => {
    const { status, body } = await fx.getFeed(ctx(), auth, fx.feedId(3));
    assert.equal(status, 200);
    assert.deepEqual(body.data, {
      id: fx.feedId(3),
      label: 'Ünïcode Label!',
      slug: 'unicode-label',
      emoji_icon: null,
      banner_file_id: null,
      banner_file_url: null,
      is_archived: false,
      is_unlisted: false,
      list_view_display_format: '',
      post_detail_display_format: '',
      chat_channel_id: '',
      chat_channel_name: '',
      chat_channel_num_members: 0,
      chat_channel_purpose_chat_blocks: [],
      chat_channel_topic_chat_blocks: [],
      chat_channel_purpose_chat_blocks_references: { mentioned_chat_users: [], mentioned_chat_channels: [], custom_emojis: [], urls: [] },
      chat_channel_topic_chat_blocks_references: { mentioned_chat_users: [], mentioned_chat_channels: [], custom_emojis: [], urls: [] },
      show_in_navigation_menu: false,
      is_site_posting_enabled: false,
    });
  });

  it('answers null, not "", for emoji_icon and the banner imported as "" or null', async () => {
    const community = await ctx().community();
    await fx.importInto(ctx(), community.id, {
      feeds: [fx.feed(7, { emoji_icon: '', banner_file_id: null, banner_file_url: '' })],
    });
    const { body } = await fx.getFeed(ctx(), community.auth, fx.feedId(7));
    assert.equal(body.data.emoji_icon, null);
    assert.equal(body.data.banner_file_id, null);
    assert.equal(body.data.banner_file_url, null);
  });

  it('finds a feed by its id in upper case', async () => {
    const { status, body } = await fx.getFeed(ctx(), auth, fx.feedId(1).toUpperCase());
    assert.equal(status, 200);
    assert.equal(body.data.id, fx.feedId(1));
  });

  it('answers 400 validation_failed naming feed_id for an id that is not a UUID', async () => {
    for (const bad of ['not-a-uuid', 'home', '123', `urn:uuid:${fx.feedId(1)}`, `${fx.feedId(1)}0`]) {
      const { status, body } = await fx.getFeed(ctx(), auth, encodeURIComponent(bad));
      assert.equal(status, 400, bad);
      assert.equal(body.error?.code, 'validation_failed', bad);
      assert.match(body.error?.message ?? '', /feed_id/, bad);
    }
  });

  it('answers 404 not_found for an unknown feed and for a feed of another community', async () => {
    for (const id of [fx.feedId(404), otherFeed]) {
      const { status, body } = await fx.getFeed(ctx(), auth, id);
      assert.equal(status, 404, id);
      assert.equal(body.error?.code, 'not_found');
    }
    // The other community sees its own feed, and not ours.
    assert.equal((await fx.getFeed(ctx(), otherAuth, otherFeed)).status, 200);
    assert.equal((await fx.getFeed(ctx(), otherAuth, fx.feedId(1))).status, 404);
  });

  it('answers 401 without a key', async () => {
    const res = await ctx().request({ method: 'GET', url: `/admin/v0/feeds/${fx.feedId(1)}` });
    assert.equal(res.statusCode, 401);
  });

  it('shows a re-imported feed with its new values', async () => {
    const community = await ctx().community();
    await fx.importInto(ctx(), community.id, { feeds: [fx.feed(5, { emoji_icon: ':tada:' })] });
    await fx.importInto(ctx(), community.id, { feeds: [fx.feed(5, { label: 'Renamed' })] });
    const { body } = await fx.getFeed(ctx(), community.auth, fx.feedId(5));
    assert.equal(body.data.label, 'Renamed');
    assert.equal(body.data.emoji_icon, null, 'a field the new record leaves out goes back to its default');
  });
});
