import assert from 'node:assert/strict';
import { it } from 'node:test';
import * as fx from '../../support/feed-fixtures.js';
import { describeEachEngine } from '../../support/harness.js';

const goodBlocks = [fx.block(fx.section(fx.text('ok')))];
const timestampRule = 'must be a date-time with a zone, years 1700 to 2250, such as 2026-11-21T18:00:00Z or 2025-05-14 19:16:38.630803+00';
const uuidPattern = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

describeEachEngine('feeds and posts: import', (ctx) => {
  // The import's error lines, pinned to the byte: each names section, index and field, then the rule broken.
  const refused: [string, Record<string, unknown>, string][] = [
    ['an unknown feed field', { feeds: [fx.feed(1, { colour: 'red' })] }, 'feeds[0].colour: is not a known field'],
    ['a feed without a label', { feeds: [{ id: fx.feedId(1) }] }, 'feeds[0].label: is required'],
    ['a feed id that is not a UUID', { feeds: [fx.feed(1, { id: 'general' })] }, `feeds[0].id: must match pattern "${uuidPattern}"`],
    [
      'a feed id in urn:uuid: form',
      { feeds: [fx.feed(1, { id: `urn:uuid:${fx.feedId(1)}` })] },
      `feeds[0].id: must match pattern "${uuidPattern}"`,
    ],
    [
      'a derived feed field',
      { feeds: [fx.feed(1, { chat_channel_topic_chat_blocks_references: {} })] },
      'feeds[0].chat_channel_topic_chat_blocks_references: is computed from chat_channel_topic_chat_blocks and cannot be imported',
    ],
    [
      'purpose blocks that are not objects with a type',
      { feeds: [fx.feed(1, { chat_channel_purpose_chat_blocks: [fx.block(fx.section({ user_id: 'U1' }))] })] },
      'feeds[0].chat_channel_purpose_chat_blocks[0].elements[0].elements[0].type: required',
    ],
    ['a duplicate feed id', { feeds: [fx.feed(1), fx.feed(1)] }, `feeds[1].id: duplicate id "${fx.feedId(1)}" in this file`],
    ['an unknown post field', { feeds: [fx.feed(1)], posts: [fx.post(1, 1, { views: 3 })] }, 'posts[0].views: is not a known field'],
    [
      'an unknown chat_message field',
      { feeds: [fx.feed(1)], posts: [fx.post(1, 1, { chat_message: { ts: 1 } })] },
      'posts[0].chat_message.ts: is not a known field',
    ],
    [
      'a post with an author object',
      { feeds: [fx.feed(1)], posts: [fx.post(1, 1, { author: {} })] },
      'posts[0].author: is computed from author_profile_id and cannot be imported',
    ],
    [
      'a post with references',
      { feeds: [fx.feed(1)], posts: [fx.post(1, 1, { references: {} })] },
      'posts[0].references: is computed from the message blocks and cannot be imported',
    ],
    ['a post without feed_id', { posts: [{ id: 'p', author_profile_id: fx.profileId(1) }] }, 'posts[0].feed_id: is required'],
    [
      'a negative count',
      { feeds: [fx.feed(1)], posts: [fx.post(1, 1, { reactions_count: -1 })] },
      'posts[0].reactions_count: must be >= 0',
    ],
    [
      'a bad timestamp',
      { feeds: [fx.feed(1)], posts: [fx.post(1, 1, { content_created_at: 'yesterday' })] },
      'posts[0].content_created_at: must match format "date-time"',
    ],
    [
      'message blocks whose elements are not a list',
      { feeds: [fx.feed(1)], posts: [fx.post(1, 1, { chat_message: { blocks: [{ type: 'rich_text', elements: 'text' }] } })] },
      'posts[0].chat_message.blocks[0].elements: must be an array',
    ],
    [
      'a prosemirror body that is not a doc',
      { feeds: [fx.feed(1)], posts: [fx.post(1, 1, { body_prosemirror: { type: 'paragraph', content: [] } })] },
      'posts[0].body_prosemirror.type: must be equal to constant',
    ],
    [
      'a post of an unknown feed',
      { feeds: [fx.feed(1)], posts: [fx.post(1, 1), fx.post(2, 9)] },
      'posts[1].feed_id: no feed "f0000000-0000-4000-8000-000000000009" in this community or file',
    ],
    [
      'a post by an unknown profile',
      { feeds: [fx.feed(1)], posts: [fx.post(1, 1, { author_profile_id: fx.profileId(7) })] },
      `posts[0].author_profile_id: no profile "${fx.profileId(7)}" in this community or file`,
    ],
    [
      'a post instant out of the years the service stores',
      { feeds: [fx.feed(1)], posts: [fx.post(1, 1, { latest_activity_at: '1500-01-01T00:00:00Z' })] },
      `posts[0].latest_activity_at: ${timestampRule}`,
    ],
    [
      'a feed instant out of the years the service stores',
      { feeds: [fx.feed(1, { updated_at: '2999-01-01T00:00:00Z' })] },
      `feeds[0].updated_at: ${timestampRule}`,
    ],
    [
      'a message_ts that is not a chat timestamp',
      { feeds: [fx.feed(1)], posts: [fx.post(1, 1, { chat_message: { message_ts: 'yesterday' } })] },
      'posts[0].chat_message.message_ts: must match pattern "^[0-9]{1,12}(\\.[0-9]{1,9})?$"',
    ],
    [
      'a duplicate post id',
      { feeds: [fx.feed(1)], posts: [fx.post(1, 1), fx.post(2, 1), fx.post(1, 1)] },
      'posts[2].id: duplicate id "post-0001" in this file',
    ],
  ];
  for (const [what, document, message] of refused) {
    it(`refuses ${what}, naming section, index and field, and keeps nothing of the file`, async () => {
      const community = await ctx().community();
      await fx.importInto(ctx(), community.id, { profiles: [fx.profile(1)] });
      const error = await fx.importError(ctx(), community.id, {
        ...document,
        feeds: [...((document.feeds as unknown[]) ?? []), fx.feed(5)],
      });
      assert.equal(error, message);
      assert.equal((await fx.getFeed(ctx(), community.auth, fx.feedId(5))).status, 404, 'the valid feed of the file was rolled back');
    });
  }

  it('refuses a post whose feed belongs to another community', async () => {
    const other = await ctx().community();
    await fx.importInto(ctx(), other.id, { feeds: [fx.feed(1)] });
    const community = await ctx().community();
    await fx.importInto(ctx(), community.id, { profiles: [fx.profile(1)] });
    assert.match(await fx.importError(ctx(), community.id, { posts: [fx.post(1, 1)] }), /^posts\[0\]\.feed_id: no feed/);
  });

  it('accepts null for any optional field, as if it were absent', async () => {
    const community = await ctx().community();
    await fx.importInto(ctx(), community.id, {
      profiles: [fx.profile(1)],
      feeds: [fx.feed(1, { public_id: null, is_archived: null, chat_channel_purpose_chat_blocks: null })],
      posts: [fx.post(1, 1, { title: null, body_plaintext: null, chat_message: { id: null, blocks: null, markdown: null } })],
    });
    const { body } = await fx.listPosts(ctx(), community.auth, 'home');
    assert.equal(body.data.records[0]?.title, '');
    assert.deepEqual(body.data.records[0]?.chat_message, fx.emptyChatMessage);
  });

  it('changes nothing when the same file is imported twice, and moves updated_at when a post changes', async () => {
    const community = await ctx().community();
    // The profile's created_at is given: a profile record without one is the profiles section's business.
    const file = {
      profiles: [fx.profile(1, { created_at: '2026-01-01T00:00:00.000Z' })],
      feeds: [fx.feed(1)],
      posts: [fx.post(1, 1, { chat_message: { blocks: goodBlocks } })],
    };
    ctx().clock.set('2026-11-21T12:00:00.000Z');
    await fx.importInto(ctx(), community.id, file);
    const first = (await fx.listPosts(ctx(), community.auth, fx.feedId(1))).body;
    ctx().clock.set('2026-11-23T12:00:00.000Z');
    await fx.importInto(ctx(), community.id, file);
    assert.deepEqual((await fx.listPosts(ctx(), community.auth, fx.feedId(1))).body, first);

    await fx.importInto(ctx(), community.id, { posts: [fx.post(1, 1, { title: 'Edited' })] });
    const edited = (await fx.listPosts(ctx(), community.auth, fx.feedId(1))).body.data.records[0];
    assert.equal(edited?.title, 'Edited');
    assert.equal(edited?.created_at, '2026-11-21 12:00:00+00');
    assert.equal(edited?.content_created_at, '2026-11-21 12:00:00+00');
    assert.equal(edited?.updated_at, '2026-11-23 12:00:00+00');
    ctx().clock.set('2026-11-21T12:00:00.000Z');
  });

  it('keeps given bodies, markdown and read time over derived ones', async () => {
    const community = await ctx().community();
    await fx.importInto(ctx(), community.id, {
      profiles: [fx.profile(1)],
      feeds: [fx.feed(1)],
      posts: [
        fx.post(1, 1, { body_plaintext: 'Given text', read_time_minutes: 9, chat_message: { blocks: goodBlocks, markdown: '*given*' } }),
      ],
    });
    const record = (await fx.listPosts(ctx(), community.auth, fx.feedId(1))).body.data.records[0];
    assert.equal(record?.body_plaintext, 'Given text');
    assert.equal(record?.read_time_minutes, 9);
    assert.equal((record?.chat_message as { markdown: string } | undefined)?.markdown, '*given*');
    assert.deepEqual(record?.body_prosemirror, { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'ok' }] }] });
  });

  it('derives Markdown and ProseMirror from body_plaintext when the post has no blocks', async () => {
    const community = await ctx().community();
    await fx.importInto(ctx(), community.id, {
      profiles: [fx.profile(1)],
      feeds: [fx.feed(1)],
      posts: [fx.post(1, 1, { body_plaintext: 'Line *one*\nLine two' })],
    });
    const record = (await fx.listPosts(ctx(), community.auth, fx.feedId(1))).body.data.records[0];
    assert.equal((record?.chat_message as { markdown: string } | undefined)?.markdown, 'Line \\*one\\*\\\nLine two');
    assert.deepEqual(record?.body_prosemirror, {
      type: 'doc',
      content: [
        { type: 'paragraph', content: [{ type: 'text', text: 'Line *one*' }, { type: 'hard_break' }, { type: 'text', text: 'Line two' }] },
      ],
    });
    assert.equal(record?.read_time_minutes, 1);
  });

  it('reads 201 words as 2 minutes and names mentioned users as the community knows them at import', async () => {
    const community = await ctx().community();
    const words = Array.from({ length: 200 }, (_, i) => `w${i}`).join(' ');
    await fx.importInto(ctx(), community.id, {
      profiles: [fx.profile(1), fx.profile(2, { preferred_name: 'Grace' })],
      feeds: [fx.feed(1)],
      posts: [fx.post(1, 1, { chat_message: { blocks: [fx.block(fx.section(fx.text(`${words} `), fx.user('U2')))] } })],
    });
    const record = (await fx.listPosts(ctx(), community.auth, fx.feedId(1))).body.data.records[0];
    assert.equal(record?.read_time_minutes, 2);
    assert.ok(String(record?.body_plaintext).endsWith('w199 @Grace'));
    assert.equal(record?.id, fx.postId(1));
  });
});
