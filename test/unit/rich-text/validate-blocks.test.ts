import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateBlocks } from '../../../src/rich-text/index.js';
import { block, blocksOf, EVERY_INLINE_TYPE, list, nested, section, text } from './rich-text.fixtures.js';

const INLINE = 'b[0].elements[0].elements[0]';

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
      assert.deepEqual(validateBlocks(value, 'description_chat_blocks'), ['description_chat_blocks: must be an array of rich text blocks']);
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

  it('requires elements on rich_text blocks and on sections and lists', () => {
    assert.deepEqual(validateBlocks([{ type: 'rich_text' }], 'b'), ['b[0].elements: required for block type "rich_text"']);
    assert.deepEqual(validateBlocks([block({ type: 'rich_text_section' }, { type: 'rich_text_list', style: 'bullet' })], 'b'), [
      'b[0].elements[0].elements: required for element type "rich_text_section"',
      'b[0].elements[1].elements: required for element type "rich_text_list"',
    ]);
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

  const missingFields: [string, Record<string, unknown>, string][] = [
    ['user', { type: 'user' }, 'user_id'],
    ['channel', { type: 'channel' }, 'channel_id'],
    ['usergroup', { type: 'usergroup' }, 'usergroup_id'],
    ['text', { type: 'text' }, 'text'],
    ['link', { type: 'link', text: 'x' }, 'url'],
    ['emoji', { type: 'emoji', unicode: '1f600' }, 'name'],
    ['date (timestamp)', { type: 'date', format: '{date}' }, 'timestamp'],
    ['date (format)', { type: 'date', timestamp: 1 }, 'format'],
    ['broadcast', { type: 'broadcast' }, 'range'],
    ['color', { type: 'color' }, 'value'],
  ];
  for (const [label, element, field] of missingFields) {
    it(`names the missing required field of a ${label} element`, () => {
      const type = String(element.type);
      assert.deepEqual(validateBlocks(blocksOf(element), 'b'), [`${INLINE}.${field}: required for element type "${type}"`]);
    });
  }

  it('uses the caller path in the message, e.g. for a user element deep in a section', () => {
    const blocks = [block(section(text('a'), text('b')), section({ type: 'user' }))];
    assert.deepEqual(validateBlocks(blocks, 'description_chat_blocks'), [
      'description_chat_blocks[0].elements[1].elements[0].user_id: required for element type "user"',
    ]);
  });

  const wrongTypes: [string, Record<string, unknown>, string][] = [
    ['user_id as a number', { type: 'user', user_id: 5 }, 'user_id: must be a non-empty string'],
    ['empty channel_id', { type: 'channel', channel_id: '' }, 'channel_id: must be a non-empty string'],
    ['text as null', { type: 'text', text: null }, 'text: must be a string'],
    ['link url as an object', { type: 'link', url: {} }, 'url: must be a non-empty string'],
    ['link unsafe as a string', { type: 'link', url: 'https://x', unsafe: 'yes' }, 'unsafe: must be a boolean'],
    ['date timestamp as a string', { type: 'date', timestamp: '1700000000', format: '{date}' }, 'timestamp: must be a finite number'],
    ['date fallback as a number', { type: 'date', timestamp: 1, format: '{date}', fallback: 1 }, 'fallback: must be a string'],
    [
      'emoji unicode that is not hex',
      { type: 'emoji', name: 'x', unicode: 'smile' },
      'unicode: must be hex code points joined by "-" (e.g. "1f44d-1f3fb")',
    ],
    ['broadcast range outside the enum', { type: 'broadcast', range: 'all' }, 'range: must be one of "here", "channel", "everyone"'],
    ['color value as a number', { type: 'color', value: 0xff }, 'value: must be a string'],
    ['style as a string', { type: 'text', text: 'x', style: 'bold' }, 'style: must be an object'],
    ['style flag as a string', { type: 'text', text: 'x', style: { bold: 'true' } }, 'style.bold: must be a boolean'],
    ['mention style flag as a number', { type: 'usergroup', usergroup_id: 'S1', style: { unlink: 1 } }, 'style.unlink: must be a boolean'],
  ];
  for (const [label, element, problem] of wrongTypes) {
    it(`reports ${label}`, () => {
      assert.deepEqual(validateBlocks(blocksOf(element), 'b'), [`${INLINE}.${problem}`]);
    });
  }

  it('ignores style flags that the spec does not document', () => {
    assert.deepEqual(validateBlocks(blocksOf(text('x', { sparkle: 'yes' })), 'b'), []);
  });

  it('reports a list style other than bullet or ordered, and a missing one', () => {
    const blocks = [block(list('dots', [section(text('a'))]), { type: 'rich_text_list', elements: [] })];
    assert.deepEqual(validateBlocks(blocks, 'b'), [
      'b[0].elements[0].style: must be one of "bullet", "ordered"',
      'b[0].elements[1].style: required for element type "rich_text_list"',
    ]);
  });

  it('reports list indent and offset that are not non-negative integers', () => {
    const blocks = [block(list('bullet', [], { indent: -1, offset: 1.5 }))];
    assert.deepEqual(validateBlocks(blocks, 'b'), [
      'b[0].elements[0].indent: must be a non-negative integer',
      'b[0].elements[0].offset: must be a non-negative integer',
    ]);
  });

  it('reports known element types in the wrong place', () => {
    const blocks = [block(text('loose'), list('bullet', [text('not a section')]), section(section(text('x')))), section(text('top'))];
    assert.deepEqual(validateBlocks(blocks, 'b'), [
      'b[0].elements[0].type: "text" is not allowed in a rich_text block (expected rich_text_section or rich_text_list)',
      'b[0].elements[1].elements[0].type: "text" is not allowed in a rich_text_list (expected rich_text_section)',
      'b[0].elements[2].elements[0].type: "rich_text_section" is not allowed in a section (expected an inline element)',
      'b[1].type: "rich_text_section" is not allowed in the list of blocks (expected a block such as "rich_text")',
    ]);
  });

  it('checks known elements inside unknown containers', () => {
    const blocks = [block({ type: 'mystery', elements: [{ type: 'user' }] })];
    assert.deepEqual(validateBlocks(blocks, 'b'), ['b[0].elements[0].elements[0].user_id: required for element type "user"']);
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
