import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateBlocks } from '../../src/rich-text/index.js';
import { block, blocksOf, EVERY_INLINE_TYPE, list, nested, section, text } from './rich-text.fixtures.js';

describe('validateBlocks', () => {
  it('accepts every documented inline element type and both block element types', () => {
    const blocks = [block(section(...EVERY_INLINE_TYPE), list('bullet', [section(text('a'))]), list('ordered', [section(text('b'))]))];
    assert.deepEqual(validateBlocks(blocks, 'b'), []);
  });

  it('accepts an empty array, and a block without block_id', () => {
    assert.deepEqual(validateBlocks([], 'b'), []);
    assert.deepEqual(validateBlocks([{ type: 'rich_text', elements: [] }], 'b'), []);
  });

  it('accepts unknown types as blocks, block elements and inline elements', () => {
    const blocks = [
      { type: 'divider', block_id: 'd1' },
      block({ type: 'rich_text_preformatted', elements: [text('x')] }, { type: 'future_thing', anything: [1, { a: null }] }),
      block(section({ type: 'sparkle', style: 'shiny', text: { nested: true } })),
    ];
    assert.deepEqual(validateBlocks(blocks, 'b'), []);
  });

  for (const value of [null, undefined, 5, 'blocks', {}, true]) {
    it(`reports a value that is not an array (${JSON.stringify(value) ?? 'undefined'})`, () => {
      assert.deepEqual(validateBlocks(value, 'description_chat_blocks'), ['description_chat_blocks: must be an array of blocks']);
    });
  }

  it('reports blocks that are not objects', () => {
    assert.deepEqual(validateBlocks([null, 5, [], 'x'], 'b'), [
      'b[0]: must be an object',
      'b[1]: must be an object',
      'b[2]: must be an object',
      'b[3]: must be an object',
    ]);
  });

  it('reports a missing or non-string type', () => {
    assert.deepEqual(validateBlocks([{ elements: [] }, { type: 7 }, { type: '' }], 'b'), [
      'b[0].type: required',
      'b[1].type: must be a non-empty string',
      'b[2].type: must be a non-empty string',
    ]);
  });

  it('keeps a rich_text block, a section or a list without elements (they render as nothing)', () => {
    assert.deepEqual(validateBlocks([{ type: 'rich_text' }], 'b'), []);
    assert.deepEqual(validateBlocks([block({ type: 'rich_text_section' }, { type: 'rich_text_list', style: 'bullet' })], 'b'), []);
  });

  it('reports a block_id that is not a string, whatever the block type', () => {
    assert.deepEqual(
      validateBlocks(
        [
          { type: 'rich_text', block_id: 5, elements: [] },
          { type: 'header', block_id: null },
        ],
        'b',
      ),
      ['b[0].block_id: must be a string', 'b[1].block_id: must be a string'],
    );
  });

  // The chat platform's data is broader than its documentation: a known element whose fields are
  // not what the documentation says is kept as it is, never refused (the renderers show its text).
  const oddKnownElements: [string, Record<string, unknown>][] = [
    ['a user without user_id', { type: 'user' }],
    ['a user_id as a number', { type: 'user', user_id: 5 }],
    ['an empty channel_id', { type: 'channel', channel_id: '' }],
    ['a text as null', { type: 'text', text: null }],
    ['a link url as an object', { type: 'link', url: {} }],
    ['a date timestamp as a string', { type: 'date', timestamp: '1700000000', format: '{date}' }],
    ['an emoji unicode that is not hex', { type: 'emoji', name: 'x', unicode: 'smile' }],
    ['an emoji with a skin_tone', { type: 'emoji', name: 'wave', unicode: '1f44b-1f3fc', skin_tone: 3 }],
    ['a broadcast range outside the documented ones', { type: 'broadcast', range: 'all' }],
    ['a style as a string', { type: 'text', text: 'x', style: 'bold' }],
    ['a style flag as a string', { type: 'text', text: 'x', style: { bold: 'true', underline: true } }],
  ];
  for (const [label, element] of oddKnownElements) {
    it(`keeps ${label}`, () => {
      assert.deepEqual(validateBlocks(blocksOf(element), 'b'), []);
    });
  }

  it('keeps lists with any style, indent, offset and border, and known types in unexpected places', () => {
    const blocks = [
      block(list('dots', [section(text('a'))], { indent: 9, offset: 1.5, border: 1 }), { type: 'rich_text_list', elements: [] }),
      block(text('loose'), list('bullet', [text('not a section')]), section(section(text('x')))),
      section(text('top')),
    ];
    assert.deepEqual(validateBlocks(blocks, 'b'), []);
  });

  it('keeps Block Kit layout blocks as the chat platform writes them', () => {
    const blocks = [
      { type: 'header', block_id: 'h', text: { type: 'plain_text', text: 'Title :tada:', emoji: true } },
      { type: 'section', text: { type: 'mrkdwn', text: 'Hi <@U1>' }, fields: [{ type: 'plain_text', text: 'x' }] },
      {
        type: 'context',
        elements: [
          { type: 'mrkdwn', text: '*a*' },
          { type: 'image', image_url: 'https://x/y.png', alt_text: 'y' },
        ],
      },
      { type: 'divider' },
      { type: 'image', image_url: 'https://x/y.png', alt_text: 'y', title: { type: 'plain_text', text: 'Y' } },
    ];
    assert.deepEqual(validateBlocks(blocks, 'b'), []);
  });

  it('still reports a missing type deep inside, with the caller path', () => {
    const blocks = [block(section(text('a'), { text: 'no type' }))];
    assert.deepEqual(validateBlocks(blocks, 'description_chat_blocks'), [
      'description_chat_blocks[0].elements[0].elements[1].type: required',
    ]);
  });

  it('reports elements that are not an array, or hold non-objects, even on unknown types', () => {
    const blocks = [block({ type: 'mystery', elements: 'nope' }, section('text', null, [text('x')]))];
    assert.deepEqual(validateBlocks(blocks, 'b'), [
      'b[0].elements[0].elements: must be an array',
      'b[0].elements[1].elements[0]: must be an object',
      'b[0].elements[1].elements[1]: must be an object',
      'b[0].elements[1].elements[2]: must be an object',
    ]);
  });

  it('accepts nesting up to 8 levels and reports deeper nesting', () => {
    assert.deepEqual(validateBlocks(nested(6), 'b'), []);
    const problems = validateBlocks(nested(7), 'b');
    assert.equal(problems.length, 1);
    assert.match(problems[0] ?? '', /^b\[0\](\.elements\[0\]){8}: nested deeper than 8 levels$/);
  });

  it('reports more than 10,000 elements once, and accepts exactly 10,000', () => {
    const inline = (count: number) => Array.from({ length: count }, () => text('w'));
    // block + section + inline elements
    assert.deepEqual(validateBlocks(blocksOf(...inline(9_998)), 'b'), []);
    assert.deepEqual(validateBlocks(blocksOf(...inline(9_999)), 'b'), ['b: more than 10000 elements']);
  });

  it('stops after 100 problems', () => {
    const problems = validateBlocks(
      Array.from({ length: 500 }, () => null),
      'b',
    );
    assert.equal(problems.length, 101);
    assert.equal(problems[100], 'b: more than 100 problems; stopped checking');
  });

  it('does not mistake Object.prototype names for known types', () => {
    const blocks = [
      { type: 'constructor' },
      { type: '__proto__', elements: [] },
      block(section({ type: 'toString', style: 1 }, { type: 'hasOwnProperty' })),
    ];
    assert.deepEqual(validateBlocks(blocks, 'b'), []);
  });

  it('never throws on odd values in odd places', () => {
    const odd: unknown[] = [
      [Object.create(null)],
      [{ type: 'rich_text', elements: [[], [1], null, { type: 'rich_text_list', style: null, elements: [[null]] }] }],
      [
        {
          type: 'rich_text',
          elements: [section({ type: 'date', timestamp: Number.NaN, format: 1 }, { type: 'emoji', name: [], unicode: {} })],
        },
      ],
      nested(5_000),
    ];
    for (const value of odd) assert.ok(Array.isArray(validateBlocks(value, 'b')));
  });
});
