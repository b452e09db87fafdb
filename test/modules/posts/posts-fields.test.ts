import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import * as fx from '../../support/feed-fixtures.js';
import { describeEachEngine } from '../../support/harness.js';

const blocks = [fx.block(fx.section(fx.text('Read '), fx.link('https://example.com/doc', 'the doc'), fx.text(' with '), fx.user('U2')))];
const prosemirror = { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Custom body' }] }] };

/** A post with every stored field set to something other than its default. */
const fullPost = fx.post(1, 1, {
  created_at: '2026-03-01T10:00:00.000Z',
  updated_at: '2026-03-02T10:00:00.000Z',
  content_created_at: '2026-02-28T09:00:00.000Z',
  latest_activity_at: '2026-03-05T08:00:00.000Z',
  title: 'Welcome aboard',
  slug: 'welcome-aboard',
  post_detail_display_format: 'discussion',
  author_profile_id: fx.profileId(2),
  read_time_minutes: 7,
  source: 'chat',
  file_attachments_count: 2,
  reactions_count: 13,
  comments_count: 4,
  body_plaintext: 'Custom plain body',
  body_prosemirror: prosemirror,
  chat_message: {
    id: '3f1c2a9e-1111-4222-8333-444455556666',
    message_ts: '1772272800.000123',
    blocks,
    markdown: 'Custom *markdown*',
    permalink: 'https://chat.example.com/archives/C1/p1772272800000123',
    parent_chat_message_id: '3f1c2a9e-1111-4222-8333-444455550000',
    username: 'ada',
    icon: ':robot_face:',
  },
  cover_image_file_id: 'F9',
  cover_image_url: 'https://example.com/cover.jpg',
});

describeEachEngine('posts: record fields', (ctx) => {
  let auth: fx.Auth;

  before(async () => {
    const community = await ctx().community();
    auth = community.auth;
    await fx.importInto(ctx(), community.id, {
      profiles: [fx.profile(1), fx.profile(2, { preferred_name: 'Grace H', chat_image_72: 'https://example.com/g72.png' })],
      feeds: [fx.feed(1, { label: 'Announcements', slug: 'announcements' })],
      posts: [fullPost, fx.post(2, 1, { title: 'Bare', content_created_at: '2026-01-01T00:00:00Z' })],
    });
  });

  it('returns every field of the spec with the imported values, author, feed and references', async () => {
    const { status, body } = await fx.listPosts(ctx(), auth, fx.feedId(1));
    assert.equal(status, 200);
    const record = body.data.records[0];
    assert.ok(record);
    const { author, feed: feedSummary, references, ...stored } = record;
    assert.deepEqual(stored, {
      ...fullPost,
      created_at: '2026-03-01 10:00:00+00',
      updated_at: '2026-03-02 10:00:00+00',
      content_created_at: '2026-02-28 09:00:00+00',
      latest_activity_at: '2026-03-05 08:00:00+00',
    });
    assert.deepEqual(author, {
      profile_id: fx.profileId(2),
      created_at: '2026-11-21 12:00:00+00',
      preferred_name: 'Grace H',
      preferred_image_original: '',
      preferred_image_1024: '',
      preferred_image_512: '',
      preferred_image_192: '',
      preferred_image_72: '',
      preferred_image_48: '',
      preferred_image_32: '',
      preferred_image_24: '',
      first_name: 'First2',
      last_name: 'Last2',
      email: 'person2@example.com',
      chat_user_id: 'U2',
      chat_is_admin: false,
      chat_is_bot: false,
      chat_first_name: '',
      chat_last_name: '',
      chat_image_72: 'https://example.com/g72.png',
      chat_image_original: '',
    });
    assert.deepEqual(feedSummary, { id: fx.feedId(1), label: 'Announcements', slug: 'announcements' });
    assert.deepEqual(references, {
      mentioned_chat_users: [{ profile_id: fx.profileId(2), preferred_name: 'Grace H', chat_user_id: 'U2' }],
      mentioned_chat_channels: [],
      custom_emojis: [],
      urls: [{ order_seen: 0, is_embedded_media: false, is_image: false, is_video: false, url: 'https://example.com/doc' }],
    });
  });

  it('fills every field the file leaves out with a default or a derived value', async () => {
    const { body } = await fx.listPosts(ctx(), auth, fx.feedId(1), 'sort=oldest&per_page=1');
    const record = body.data.records[0];
    assert.ok(record);
    assert.deepEqual(
      { ...record, author: (record.author as { profile_id: string }).profile_id },
      {
        id: fx.postId(2),
        created_at: '2026-11-21 12:00:00+00',
        updated_at: '2026-11-21 12:00:00+00',
        content_created_at: '2026-01-01 00:00:00+00',
        latest_activity_at: '2026-01-01 00:00:00+00',
        title: 'Bare',
        slug: 'bare',
        feed_id: fx.feedId(1),
        post_detail_display_format: '',
        author_profile_id: fx.profileId(1),
        read_time_minutes: 0,
        source: '',
        file_attachments_count: 0,
        reactions_count: 0,
        comments_count: 0,
        body_plaintext: '',
        body_prosemirror: { type: 'doc', content: [] },
        chat_message: fx.emptyChatMessage,
        cover_image_file_id: null,
        cover_image_url: null,
        author: fx.profileId(1),
        feed: { id: fx.feedId(1), label: 'Announcements', slug: 'announcements' },
        references: { mentioned_chat_users: [], mentioned_chat_channels: [], custom_emojis: [], urls: [] },
      },
    );
  });

  it("writes timestamps in PostgreSQL's text spelling, which Date.parse does not read but Ruby's Time.parse does", async () => {
    const { body } = await fx.listPosts(ctx(), auth, fx.feedId(1));
    for (const record of body.data.records) {
      for (const field of ['created_at', 'updated_at', 'content_created_at', 'latest_activity_at']) {
        const value = String(record[field]);
        assert.match(value, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,6})?\+00$/, field);
      }
    }
  });

  it('accepts the sample timestamp form "YYYY-MM-DD HH:MM:SS.ffffff+00" in the import', async () => {
    const community = await ctx().community();
    await fx.importInto(ctx(), community.id, {
      profiles: [fx.profile(1)],
      feeds: [fx.feed(1)],
      posts: [fx.post(1, 1, { content_created_at: '2026-05-06 07:08:09.123456+00', latest_activity_at: '2026-05-06 09:08:09+02:00' })],
    });
    const { body } = await fx.listPosts(ctx(), community.auth, fx.feedId(1));
    assert.equal(body.data.records[0]?.content_created_at, '2026-05-06 07:08:09.123456+00', 'kept to the microsecond');
    assert.equal(body.data.records[0]?.latest_activity_at, '2026-05-06 07:08:09+00');
  });
});
