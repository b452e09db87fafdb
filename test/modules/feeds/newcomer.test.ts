import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import * as fx from '../../support/feed-fixtures.js';
import { describeEachEngine } from '../../support/harness.js';

// What a newcomer does first: load a feed whose posts were written in the chat app, then read
// them back and check that every rendering says what the blocks say.
const welcomeBlocks = [
  fx.block(
    fx.section(fx.text('Welcome to '), fx.channel('C1'), fx.text(', '), fx.user('U2'), fx.text('! '), fx.emoji('wave', '1f44b')),
    fx.section(fx.text('Ground rules', { bold: true }), fx.text('\n')),
    fx.list(
      'bullet',
      fx.section(fx.text('Be '), fx.text('kind', { italic: true })),
      fx.section(fx.text('Run '), fx.text('npm test', { code: true }), fx.text(' first')),
    ),
    fx.list(
      'ordered',
      fx.section(fx.text('Read the '), fx.link('https://example.com/guide', 'guide')),
      fx.section(fx.text('Say hi '), fx.emoji('partyparrot')),
    ),
    fx.section(fx.text('Questions? Ask '), fx.user('U404'), fx.text(' in '), fx.channel('C9')),
  ),
];

const welcome = fx.post(1, 1, {
  title: 'Welcome!',
  source: 'chat',
  content_created_at: '2026-11-20T09:00:00.000Z',
  chat_message: { id: 'c0000000-0000-4000-8000-000000000001', message_ts: 1795165200.0001, blocks: welcomeBlocks, username: 'Grace' },
});

const bold = (value: string): fx.Json => ({ type: 'text', text: value, marks: [{ type: 'bold' }] });
const plain = (value: string): fx.Json => ({ type: 'text', text: value });
const paragraph = (...content: fx.Json[]): fx.Json => ({ type: 'paragraph', content });
const item = (...content: fx.Json[]): fx.Json => ({ type: 'list_item', content: [paragraph(...content)] });

describeEachEngine('feeds: a newcomer imports chat posts and reads them back', (ctx) => {
  let auth: fx.Auth;
  let record: fx.Json;

  before(async () => {
    const community = await ctx().community('free');
    auth = community.auth;
    const counts = await fx.importInto(ctx(), community.id, {
      profiles: [fx.profile(2, { preferred_name: 'Grace' })],
      feeds: [
        fx.feed(1, {
          label: 'Welcome',
          slug: 'welcome',
          chat_channel_name: 'welcome',
          chat_channel_topic_chat_blocks: [fx.block(fx.section(fx.text('Say hi to '), fx.user('U2')))],
        }),
      ],
      posts: [{ ...welcome, author_profile_id: fx.profileId(2) }],
    });
    assert.deepEqual(counts, { profiles: 1, feeds: 1, posts: 1 });
    const { status, body } = await fx.listPosts(ctx(), auth, 'home');
    assert.equal(status, 200);
    record = body.data.records[0] as fx.Json;
  });

  it('reads the post back on the Home feed and on its own feed', async () => {
    assert.equal(record.id, fx.postId(1));
    assert.deepEqual(record.feed, { id: fx.feedId(1), label: 'Welcome', slug: 'welcome' });
    assert.equal((record.author as fx.Json).preferred_name, 'Grace');
    const own = await fx.listPosts(ctx(), auth, fx.feedId(1));
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
      (record.chat_message as fx.Json).markdown,
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
      mentioned_chat_users: [{ profile_id: fx.profileId(2), preferred_name: 'Grace', chat_user_id: 'U2' }],
      mentioned_chat_channels: [
        {
          chat_channel: { id: 'C1', name: 'welcome' },
          feed: { id: fx.feedId(1), label: 'Welcome', slug: 'welcome', public_id: '', chat_channel: { name: 'welcome' } },
        },
      ],
      custom_emojis: [{ alias: 'partyparrot', name: 'partyparrot', url: '' }],
      urls: [{ order_seen: 0, is_embedded_media: false, is_image: false, is_video: false, url: 'https://example.com/guide' }],
    });
  });

  it('returns the blocks and the chat message exactly as imported', () => {
    assert.deepEqual(
      { ...(record.chat_message as fx.Json), markdown: undefined },
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
    const { status, body } = await fx.getFeed(ctx(), auth, fx.feedId(1));
    assert.equal(status, 200);
    assert.equal(body.data.id, fx.feedId(1));
    assert.deepEqual(body.data.chat_channel_topic_chat_blocks, [fx.block(fx.section(fx.text('Say hi to '), fx.user('U2')))]);
    assert.deepEqual((body.data.chat_channel_topic_chat_blocks_references as fx.Json).mentioned_chat_users, [
      { profile_id: fx.profileId(2), preferred_name: 'Grace', chat_user_id: 'U2' },
    ]);
    assert.equal('chat_channel_is_private' in body.data, false);
  });
});
