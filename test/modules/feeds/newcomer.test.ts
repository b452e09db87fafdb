import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import {
  type Auth,
  block,
  channel,
  emoji,
  feed,
  feedId,
  getFeed,
  importInto,
  type Json,
  link,
  list,
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

// What a newcomer does first: load a feed whose posts were written in the chat app, then read
// them back and check that every rendering says what the blocks say.
const welcomeBlocks = [
  block(
    section(text('Welcome to '), channel('C1'), text(', '), user('U2'), text('! '), emoji('wave', '1f44b')),
    section(text('Ground rules', { bold: true }), text('\n')),
    list(
      'bullet',
      section(text('Be '), text('kind', { italic: true })),
      section(text('Run '), text('npm test', { code: true }), text(' first')),
    ),
    list('ordered', section(text('Read the '), link('https://example.com/guide', 'guide')), section(text('Say hi '), emoji('partyparrot'))),
    section(text('Questions? Ask '), user('U404'), text(' in '), channel('C9')),
  ),
];

const welcome = post(1, 1, {
  title: 'Welcome!',
  source: 'chat',
  content_created_at: '2026-11-20T09:00:00.000Z',
  chat_message: { id: 'c0000000-0000-4000-8000-000000000001', message_ts: 1795165200.0001, blocks: welcomeBlocks, username: 'Grace' },
});

const bold = (value: string): Json => ({ type: 'text', text: value, marks: [{ type: 'bold' }] });
const plain = (value: string): Json => ({ type: 'text', text: value });
const paragraph = (...content: Json[]): Json => ({ type: 'paragraph', content });
const item = (...content: Json[]): Json => ({ type: 'list_item', content: [paragraph(...content)] });

describeEachEngine('feeds: a newcomer imports chat posts and reads them back', (ctx) => {
  let auth: Auth;
  let record: Json;

  before(async () => {
    const community = await ctx().community('free');
    auth = community.auth;
    const counts = await importInto(ctx(), community.id, {
      profiles: [profile(2, { preferred_name: 'Grace' })],
      feeds: [
        feed(1, {
          label: 'Welcome',
          slug: 'welcome',
          chat_channel_name: 'welcome',
          chat_channel_topic_chat_blocks: [block(section(text('Say hi to '), user('U2')))],
        }),
      ],
      posts: [{ ...welcome, author_profile_id: profileId(2) }],
    });
    assert.deepEqual(counts, { profiles: 1, feeds: 1, posts: 1 });
    const { status, body } = await listPosts(ctx(), auth, 'home');
    assert.equal(status, 200);
    record = body.data.records[0] as Json;
  });

  it('reads the post back on the Home feed and on its own feed', async () => {
    assert.equal(record.id, postId(1));
    assert.deepEqual(record.feed, { id: feedId(1), label: 'Welcome', slug: 'welcome' });
    assert.equal((record.author as Json).preferred_name, 'Grace');
    const own = await listPosts(ctx(), auth, feedId(1));
    assert.deepEqual(own.body.data.records[0], record);
  });

  it('gives the plain text a reader sees, with mentions by name where the community knows them', () => {
    assert.equal(
      record.body_plaintext,
      [
        'Welcome to #welcome, @Grace! :wave:',
        'Ground rules',
        '- Be kind',
        '- Run npm test first',
        '1. Read the guide',
        '2. Say hi :partyparrot:',
        'Questions? Ask @U404 in #C9',
      ].join('\n'),
    );
    assert.equal(record.read_time_minutes, 1);
  });

  it('gives Markdown with the same styles, lists and link', () => {
    assert.equal(
      (record.chat_message as Json).markdown,
      [
        'Welcome to #welcome, @Grace! :wave:',
        '',
        '**Ground rules**',
        '',
        '- Be _kind_',
        '- Run `npm test` first',
        '1. Read the [guide](https://example.com/guide)',
        '2. Say hi :partyparrot:',
        '',
        'Questions? Ask @U404 in #C9',
      ].join('\n'),
    );
  });

  it('gives a ProseMirror document with the same structure and marks', () => {
    assert.deepEqual(record.body_prosemirror, {
      type: 'doc',
      content: [
        paragraph(plain('Welcome to #welcome, @Grace! :wave:')),
        paragraph(bold('Ground rules')),
        {
          type: 'bullet_list',
          content: [
            item(plain('Be '), { type: 'text', text: 'kind', marks: [{ type: 'italic' }] }),
            item(plain('Run '), { type: 'text', text: 'npm test', marks: [{ type: 'code' }] }, plain(' first')),
          ],
        },
        {
          type: 'ordered_list',
          attrs: { order: 1 },
          content: [
            item(plain('Read the '), {
              type: 'text',
              text: 'guide',
              marks: [{ type: 'link', attrs: { href: 'https://example.com/guide' } }],
            }),
            item(plain('Say hi :partyparrot:')),
          ],
        },
        paragraph(plain('Questions? Ask @U404 in #C9')),
      ],
    });
  });

  it('lists the references of the message: known users and channels, custom emojis, links', () => {
    assert.deepEqual(record.references, {
      mentioned_chat_users: [{ profile_id: profileId(2), preferred_name: 'Grace', chat_user_id: 'U2' }],
      mentioned_chat_channels: [
        {
          chat_channel: { id: 'C1', name: 'welcome' },
          feed: { id: feedId(1), label: 'Welcome', slug: 'welcome', public_id: '', chat_channel: { name: 'welcome' } },
        },
      ],
      custom_emojis: [{ alias: 'partyparrot', name: 'partyparrot', url: '' }],
      urls: [{ order_seen: 0, is_embedded_media: false, is_image: false, is_video: false, url: 'https://example.com/guide' }],
    });
  });

  it('returns the blocks and the chat message exactly as imported', () => {
    assert.deepEqual(
      { ...(record.chat_message as Json), markdown: undefined },
      {
        id: 'c0000000-0000-4000-8000-000000000001',
        message_ts: '1795165200.000100',
        blocks: welcomeBlocks,
        markdown: undefined,
        permalink: '',
        parent_chat_message_id: null,
        username: 'Grace',
        icon: null,
      },
    );
  });

  it('shows the feed with its topic blocks and their references, as the hosted product answers', async () => {
    const { status, body } = await getFeed(ctx(), auth, feedId(1));
    assert.equal(status, 200);
    assert.equal(body.data.id, feedId(1));
    assert.deepEqual(body.data.chat_channel_topic_chat_blocks, [block(section(text('Say hi to '), user('U2')))]);
    assert.deepEqual((body.data.chat_channel_topic_chat_blocks_references as Json).mentioned_chat_users, [
      { profile_id: profileId(2), preferred_name: 'Grace', chat_user_id: 'U2' },
    ]);
    assert.equal('chat_channel_is_private' in body.data, false);
  });
});
