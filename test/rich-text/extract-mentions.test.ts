import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractMentions } from '../../src/rich-text/index.js';
import { block, blocksOf, EVERY_INLINE_TYPE, list, nested, section, text } from './rich-text.fixtures.js';

const user = (id: string) => ({ type: 'user', user_id: id });
const channel = (id: string) => ({ type: 'channel', channel_id: id });
const link = (url: string) => ({ type: 'link', url });
const noMentions = { userIds: [], channelIds: [], customEmojis: [], urls: [] };

describe('extractMentions', () => {
  it('collects users, channels, custom emojis and links from every inline type', () => {
    assert.deepEqual(extractMentions(blocksOf(...EVERY_INLINE_TYPE, { type: 'emoji', name: 'partyparrot' })), {
      userIds: ['U100'],
      channelIds: ['C100'],
      customEmojis: [{ alias: 'partyparrot', name: 'partyparrot', url: '' }],
      urls: [{ order_seen: 0, is_embedded_media: false, is_image: false, is_video: false, url: 'https://example.com' }],
    });
  });

  it('deduplicates users and channels in order of first appearance, across sections, lists and blocks', () => {
    const blocks = [
      block(section(user('U2'), user('U1')), list('bullet', [section(user('U2'), channel('C2'))])),
      block(section(user('U3'), channel('C1'), channel('C2'), user('U1'))),
    ];
    const mentions = extractMentions(blocks);
    assert.deepEqual(mentions.userIds, ['U2', 'U1', 'U3']);
    assert.deepEqual(mentions.channelIds, ['C2', 'C1']);
  });

  it('treats only emojis without unicode as custom, keeps their url, and deduplicates by name', () => {
    const blocks = blocksOf(
      { type: 'emoji', name: 'smile', unicode: '1f604' },
      { type: 'emoji', name: 'blob', url: 'https://emoji.example/blob.png' },
      { type: 'emoji', name: 'cat', unicode: '' },
      { type: 'emoji', name: 'blob' },
    );
    assert.deepEqual(extractMentions(blocks).customEmojis, [
      { alias: 'blob', name: 'blob', url: 'https://emoji.example/blob.png' },
      { alias: 'cat', name: 'cat', url: '' },
    ]);
  });

  it('numbers distinct urls 0, 1, 2 in the order first seen', () => {
    const blocks = blocksOf(link('https://a.example'), link('https://b.example'), link('https://a.example'), link('https://c.example'));
    assert.deepEqual(
      extractMentions(blocks).urls.map(({ order_seen, url }) => [order_seen, url]),
      [
        [0, 'https://a.example'],
        [1, 'https://b.example'],
        [2, 'https://c.example'],
      ],
    );
  });

  const classified: [string, boolean, boolean, boolean][] = [
    // url, is_image, is_video, is_embedded_media
    ['https://cdn.example/pics/cat.png', true, false, true],
    ['https://cdn.example/cat.JPEG?size=large#top', true, false, true],
    ['https://cdn.example/a.gif', true, false, true],
    ['https://cdn.example/a.webp', true, false, true],
    ['https://cdn.example/logo.svg', true, false, true],
    ['https://cdn.example/a.jpg', true, false, true],
    ['https://cdn.example/clip.mp4', false, true, true],
    ['https://cdn.example/clip.MOV', false, true, true],
    ['https://cdn.example/clip.webm', false, true, true],
    ['https://cdn.example/clip.m4v', false, true, true],
    ['https://www.youtube.com/watch?v=abc', false, false, true],
    ['https://youtu.be/abc', false, false, true],
    ['https://vimeo.com/123', false, false, true],
    ['https://player.vimeo.com/video/123', false, false, true],
    ['https://www.loom.com/share/abc', false, false, true],
    ['https://notyoutube.com/watch', false, false, false],
    ['https://cdn.example/page?file=a.png', false, false, false],
    ['https://cdn.example/png', false, false, false],
    ['ftp://files.example/a.png', false, false, false],
    ['not a url at all.png', false, false, false],
  ];
  for (const [url, isImage, isVideo, embedded] of classified) {
    it(`classifies ${url}`, () => {
      const [entry] = extractMentions(blocksOf(link(url))).urls;
      assert.deepEqual(entry, { order_seen: 0, is_embedded_media: embedded, is_image: isImage, is_video: isVideo, url });
    });
  }

  it('finds mentions inside unknown containers', () => {
    assert.deepEqual(extractMentions(nested(3)).userIds, ['UDEEP']);
  });

  it('ignores what lies deeper than the nesting limit instead of failing', () => {
    assert.deepEqual(extractMentions(nested(7)).userIds, []);
    assert.deepEqual(extractMentions(nested(20_000)), noMentions);
  });

  for (const value of [null, undefined, 5, 'U1', {}, { type: 'user', user_id: 'U1' }]) {
    it(`returns empty lists for a value that is not an array (${JSON.stringify(value) ?? 'undefined'})`, () => {
      assert.deepEqual(extractMentions(value), noMentions);
    });
  }

  it('skips malformed elements and keeps the well-formed ones around them', () => {
    const blocks = [
      null,
      7,
      { type: 'rich_text', elements: 'nope' },
      block(
        section(
          { type: 'user', user_id: 5 },
          { type: 'user' },
          { type: 'channel', channel_id: '' },
          { type: 'link', url: ['x'] },
          user('U9'),
        ),
        section({ type: 'emoji', name: 3 }, null, [text('in an array')], text('fine')),
      ),
    ];
    assert.deepEqual(extractMentions(blocks), { ...noMentions, userIds: ['U9'] });
  });
});
