import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { FormatRegistry, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import Fastify from 'fastify';
import {
  buildReferences,
  emptyReferences,
  extractMentions,
  ReferencesSchema,
  RichTextBlocksSchema,
  StrictRichTextBlockSchema,
  validateBlocks,
} from '../../src/rich-text/index.js';
import { block, EVERY_INLINE_TYPE, list, section, text } from './rich-text.fixtures.js';

// Serialise the way routes do: through Fastify's response schema (fast-json-stringify).
const app = Fastify();
let payload: unknown;
for (const [path, schema] of [
  ['/blocks', RichTextBlocksSchema],
  ['/references', ReferencesSchema],
] as [string, TSchema][]) {
  app.get(path, { schema: { response: { 200: schema } } }, async () => payload);
}
after(() => app.close());

async function serialise(path: string, value: unknown): Promise<unknown> {
  payload = value;
  const response = await app.inject({ method: 'GET', url: path });
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

describe('RichTextBlockSchema as a response schema', () => {
  it('round-trips every documented element type unchanged', async () => {
    const blocks = [block(section(...EVERY_INLINE_TYPE), list('ordered', [section(text('a'))], { indent: 1, offset: 2, border: 0 }))];
    assert.deepEqual(await serialise('/blocks', blocks), blocks);
  });

  it('round-trips unknown block types, element types and properties unchanged', async () => {
    const blocks = [
      { type: 'header', block_id: 'h', text: { type: 'plain_text', text: 'Hi', emoji: true } },
      { type: 'divider' },
      {
        type: 'rich_text',
        block_id: 'b',
        extra: { deep: [1, null, 'x'] },
        elements: [
          { type: 'rich_text_future', style: { kind: 'object style' }, elements: [{ type: 'thing', text: { nested: 1 }, n: 2.5 }] },
          { type: 'rich_text_preformatted', border: 1, elements: [text('x')] },
          section({ type: 'sparkle', style: 'string style', elements: [{ type: 'deeper', ok: true }] }),
        ],
      },
    ];
    assert.equal(validateBlocks(blocks, 'b').length, 0);
    assert.deepEqual(await serialise('/blocks', blocks), blocks);
  });

  it('describes the documented shape precisely in StrictRichTextBlockSchema', () => {
    const valid = block(section(...EVERY_INLINE_TYPE), list('bullet', [section(text('a'))]));
    assert.equal(Value.Check(StrictRichTextBlockSchema, valid), true);
    assert.equal(Value.Check(StrictRichTextBlockSchema, block(section({ type: 'user' }))), false);
    assert.equal(Value.Check(StrictRichTextBlockSchema, block(list('dots', []))), false);
  });
});

describe('ReferencesSchema as a response schema', () => {
  it('round-trips built references with all four lists', async () => {
    const blocks = [
      block(
        section(
          { type: 'user', user_id: 'U1' },
          { type: 'channel', channel_id: 'C1' },
          { type: 'emoji', name: 'blob' },
          { type: 'link', url: 'https://youtu.be/x' },
        ),
      ),
    ];
    const references = buildReferences(extractMentions(blocks), {
      profilesByChatUserId: new Map([
        ['U1', { profile_id: '11111111-1111-4111-8111-111111111111', preferred_name: 'Ann', chat_user_id: 'U1' }],
      ]),
      feedsByChannelId: new Map([
        ['C1', { id: '22222222-2222-4222-8222-222222222222', label: 'G', slug: 'g', public_id: 'p', chat_channel_name: 'general' }],
      ]),
    });
    assert.equal(
      references.mentioned_chat_users.length +
        references.mentioned_chat_channels.length +
        references.custom_emojis.length +
        references.urls.length,
      4,
    );
    assert.deepEqual(await serialise('/references', references), references);
  });

  it('serialises empty references with every list present', async () => {
    assert.deepEqual(await serialise('/references', emptyReferences()), emptyReferences());
  });

  it('declares every property as required', () => {
    FormatRegistry.Set('uuid', (value) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value));
    assert.equal(Value.Check(ReferencesSchema, emptyReferences()), true);
    assert.equal(Value.Check(ReferencesSchema, { mentioned_chat_users: [], mentioned_chat_channels: [], custom_emojis: [] }), false);
    const url = { order_seen: 0, is_embedded_media: false, is_image: false, url: 'x' };
    assert.equal(Value.Check(ReferencesSchema, { ...emptyReferences(), urls: [url] }), false);
  });
});
