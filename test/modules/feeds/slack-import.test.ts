import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import {
  type Auth,
  feed,
  feedId,
  getFeed,
  importInto,
  type Json,
  listPosts,
  post,
  postId,
  profileId,
} from '../../support/feed-fixtures.js';
import { describeEachEngine } from '../../support/harness.js';
import { slackMessage, slackPurposeBlocks, slackTopicBlocks } from './slack-shapes.js';

// A newcomer loads what their Slack workspace really holds (see slack-shapes.ts) and reads it
// back: the import takes every block as it is, and the bodies and references show what a
// reader of the message sees.

describeEachEngine('feeds and posts: importing what Slack really produces', (ctx) => {
  let auth: Auth;
  let record: Json;
  let imported: Record<string, number>;

  before(async () => {
    const community = await ctx().community();
    auth = community.auth;
    imported = await importInto(ctx(), community.id, {
      profiles: [
        // A workspace member known only by the chat platform: no e-mail.
        { profile_id: profileId(1), preferred_name: 'Ada', chat_user_id: 'U0SLACK1' },
        { profile_id: profileId(2), preferred_name: 'Grace', email: 'grace@example.com', chat_user_id: 'U0SLACK2' },
      ],
      feeds: [
        feed(1, {
          chat_channel_id: 'C0SLACK1',
          chat_channel_name: 'general',
          chat_channel_purpose_chat_blocks: slackPurposeBlocks,
          chat_channel_topic_chat_blocks: slackTopicBlocks,
        }),
      ],
      posts: [post(1, 1, { source: 'chat', chat_message: { message_ts: slackMessage.ts, blocks: slackMessage.blocks } })],
    });
    const { body } = await listPosts(ctx(), auth, feedId(1));
    record = body.data.records[0] as Json;
  });

  it('takes the whole file: profiles without e-mail, section purpose and topic, every block of the message', () => {
    assert.deepEqual(imported, { profiles: 2, feeds: 1, posts: 1 });
    assert.equal(record.id, postId(1));
  });

  it('answers the blocks exactly as Slack wrote them, unknown block types and extra fields included', () => {
    const message = record.chat_message as Json;
    assert.deepEqual(message.blocks, slackMessage.blocks);
    assert.equal(message.message_ts, '1747250195.525399');
  });

  it('renders every block it can into the plain text a reader sees, emoji as shortcodes', () => {
    assert.equal(
      record.body_plaintext,
      [
        'Launch notes :rocket:',
        'Hi @Grace, see #general and the *notes*. Ship it today not now',
        'Owner',
        '@Ada',
        'Due: Friday',
        'Thanks @Grace :yarn: :heart: :wave::skin-tone-4:',
        '- one',
        '  3. three',
        'npm test',
        'Quoted by @here https://example.com/q',
        'Posted by @Ada',
      ].join('\n'),
    );
  });

  it('renders Markdown: header, mrkdwn styles and links, divider, nested list, code, quote, image', () => {
    assert.equal(
      (record.chat_message as Json).markdown,
      [
        '# Launch notes :rocket:',
        '',
        'Hi @Grace, see #general and [the \\*notes\\*](https://example.com/notes?a=1&b=2). **Ship it** _today_ ~~not~~ `now`',
        '',
        '**Owner**\\',
        '@Ada',
        '',
        'Due: Friday',
        '',
        '---',
        '',
        '**Thanks** @Grace :yarn: :heart: :wave::skin-tone-4:',
        '',
        '- one',
        '',
        '    3. three',
        '',
        '```',
        'npm test',
        '```',
        '',
        '> Quoted by @here [https://example.com/q](https://example.com/q)',
        '',
        'Posted by @Ada',
        '',
        '![The launch \\[photo\\]](https://example.com/launch "Launch")',
      ].join('\n'),
    );
  });

  it('renders a ProseMirror document with a heading, a rule, a nested list, code, a quote and the image', () => {
    const doc = record.body_prosemirror as { type: string; content: Json[] };
    assert.equal(doc.type, 'doc');
    assert.deepEqual(
      doc.content.map((node) => node.type),
      [
        'heading',
        'paragraph',
        'paragraph',
        'paragraph',
        'horizontal_rule',
        'paragraph',
        'bullet_list',
        'code_block',
        'blockquote',
        'paragraph',
        'paragraph',
      ],
    );
    assert.deepEqual(doc.content[0], { type: 'heading', attrs: { level: 1 }, content: [{ type: 'text', text: 'Launch notes :rocket:' }] });
    assert.deepEqual(doc.content.at(-1), {
      type: 'paragraph',
      content: [{ type: 'image', attrs: { src: 'https://example.com/launch', alt: 'The launch [photo]', title: 'Launch' } }],
    });
    const list = doc.content[6] as { content: { content: Json[] }[] };
    assert.equal(list.content[0]?.content[1]?.type, 'ordered_list', 'the indented list nests in the item above it');
    assert.deepEqual(list.content[0]?.content[1]?.attrs, { order: 3 }, 'offset 2 continues at 3');
  });

  it('finds the references of mrkdwn texts, rich text and images alike', () => {
    assert.deepEqual(record.references, {
      mentioned_chat_users: [
        { profile_id: profileId(2), preferred_name: 'Grace', chat_user_id: 'U0SLACK2' },
        { profile_id: profileId(1), preferred_name: 'Ada', chat_user_id: 'U0SLACK1' },
      ],
      mentioned_chat_channels: [
        {
          chat_channel: { id: 'C0SLACK1', name: 'general' },
          feed: { id: feedId(1), label: 'Feed 1', slug: 'feed-1', public_id: '', chat_channel: { name: 'general' } },
        },
      ],
      custom_emojis: [{ alias: 'yarn', name: 'yarn', url: '' }],
      urls: [
        { order_seen: 0, is_embedded_media: false, is_image: false, is_video: false, url: 'https://example.com/notes?a=1&b=2' },
        { order_seen: 1, is_embedded_media: false, is_image: false, is_video: false, url: 'https://example.com/q' },
        { order_seen: 2, is_embedded_media: true, is_image: true, is_video: false, url: 'https://example.com/avatar' },
        { order_seen: 3, is_embedded_media: true, is_image: true, is_video: false, url: 'https://example.com/launch' },
      ],
    });
  });

  it('answers the author without an e-mail as null, and the feed whose purpose is a Slack section', async () => {
    assert.equal((record.author as Json).email, null);
    const { status, body } = await getFeed(ctx(), auth, feedId(1));
    assert.equal(status, 200);
    assert.equal(body.data.chat_channel_name, 'general');
  });

  it('takes the same message again without writing anything (the import is idempotent on real data too)', async () => {
    const community = await ctx().community();
    const document = {
      profiles: [{ profile_id: profileId(1), chat_user_id: 'U0SLACK1' }],
      feeds: [feed(1)],
      posts: [post(1, 1, { chat_message: { message_ts: slackMessage.ts, blocks: slackMessage.blocks } })],
    };
    await importInto(ctx(), community.id, document);
    const first = (await listPosts(ctx(), community.auth, feedId(1))).body.data.records[0];
    await importInto(ctx(), community.id, document);
    const again = (await listPosts(ctx(), community.auth, feedId(1))).body.data.records[0];
    assert.deepEqual(again, first);
  });
});
