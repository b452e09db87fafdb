import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import Fastify from 'fastify';
import {
  extractMentions,
  type ProseMirrorNode,
  RichTextBlocksSchema,
  readTimeMinutes,
  renderMarkdown,
  renderPlaintext,
  renderProseMirror,
  validateBlocks,
} from '../../src/rich-text/index.js';

// Near-valid rich text: every documented shape, with fields that are sometimes missing,
// sometimes of the wrong type, and unknown types mixed in at every level.
const scalar = fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.boolean(), fc.constant(null));
const str = fc.oneof({ weight: 5, arbitrary: fc.string({ maxLength: 12, unit: 'grapheme' }) }, { weight: 1, arbitrary: scalar });
const flag = fc.oneof({ weight: 5, arbitrary: fc.boolean() }, { weight: 1, arbitrary: scalar });
const style = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record(
      { bold: flag, italic: flag, strike: flag, code: flag, highlight: flag },
      { requiredKeys: [], noNullPrototype: true },
    ),
  },
  { weight: 1, arbitrary: scalar },
);
const some = <T>(record: Record<string, fc.Arbitrary<unknown>>, type: fc.Arbitrary<T>) =>
  fc.record({ type, ...record }, { requiredKeys: ['type'], noNullPrototype: true });

const { blocks } = fc.letrec((tie) => ({
  inline: fc.oneof(
    some({ text: str, style }, fc.constant('text')),
    some(
      { url: fc.oneof(fc.constantFrom('https://x.example/a.png', 'javascript:x', 'mailto:a@b.c'), str), text: str, unsafe: flag, style },
      fc.constant('link'),
    ),
    some({ user_id: str, style }, fc.constant('user')),
    some({ channel_id: str, style }, fc.constant('channel')),
    some({ usergroup_id: str, style }, fc.constant('usergroup')),
    some({ range: fc.oneof(fc.constantFrom('here', 'channel', 'everyone'), str) }, fc.constant('broadcast')),
    some({ name: str, unicode: fc.oneof(fc.constantFrom('1f600', '1f44d-1f3fb', 'd800', '110000'), str), url: str }, fc.constant('emoji')),
    some({ timestamp: fc.oneof(fc.integer(), scalar), format: str, url: str, fallback: str }, fc.constant('date')),
    some({ value: str }, fc.constant('color')),
    some(
      { text: str, fallback: str, name: str, elements: fc.array(tie('inline'), { maxLength: 2 }) },
      fc.constantFrom('sparkle', 'rich_text_section', 'constructor'),
    ),
    scalar,
  ),
  section: some(
    { elements: fc.oneof({ weight: 8, arbitrary: fc.array(tie('inline'), { maxLength: 5 }) }, { weight: 1, arbitrary: scalar }) },
    fc.constantFrom('rich_text_section', 'rich_text_quote', 'rich_text_preformatted'),
  ),
  list: some(
    {
      style: fc.oneof(fc.constantFrom('bullet', 'ordered'), str),
      indent: fc.oneof(fc.nat(10), scalar),
      offset: fc.oneof(fc.nat(5), scalar),
      elements: fc.array(fc.oneof({ weight: 5, arbitrary: tie('section') }, { weight: 1, arbitrary: tie('inline') }), { maxLength: 3 }),
    },
    fc.constant('rich_text_list'),
  ),
  element: fc.oneof(tie('section'), tie('list'), tie('inline')),
  block: fc.oneof(
    { weight: 6, arbitrary: some({ block_id: str, elements: fc.array(tie('element'), { maxLength: 4 }) }, fc.constant('rich_text')) },
    {
      weight: 1,
      arbitrary: some(
        { block_id: str, text: fc.record({ type: fc.constant('plain_text'), text: str }, { noNullPrototype: true }) },
        fc.constantFrom('header', 'divider'),
      ),
    },
    { weight: 1, arbitrary: scalar },
  ),
  blocks: fc.array(tie('block'), { maxLength: 3 }),
}));

function assertNoEmptyTextNode(node: ProseMirrorNode): void {
  if (node.type === 'text') assert.ok(typeof node.text === 'string' && node.text !== '', 'empty text node');
  for (const child of node.content ?? []) assertNoEmptyTextNode(child);
}

function runEverything(value: unknown): void {
  assert.ok(Array.isArray(validateBlocks(value, 'b')));
  const mentions = extractMentions(value);
  assert.ok(Array.isArray(mentions.userIds));
  const plaintext = renderPlaintext(value);
  assert.equal(typeof plaintext, 'string');
  assert.ok(readTimeMinutes(plaintext) >= 0);
  assert.equal(typeof renderMarkdown(value), 'string');
  const doc = renderProseMirror(value);
  assert.equal(doc.type, 'doc');
  for (const node of doc.content) assertNoEmptyTextNode(node);
}

const app = Fastify();
let payload: unknown;
app.get('/blocks', { schema: { response: { 200: RichTextBlocksSchema } } }, async () => payload);
after(() => app.close());

describe('malformed input', () => {
  it('never makes any function throw on arbitrary values', () => {
    fc.assert(
      fc.property(fc.anything({ withNullPrototype: true, withBoxedValues: true, withSparseArray: true }), (value) => runEverything(value)),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.array(fc.jsonValue()), (value) => runEverything(value)),
      { numRuns: 300 },
    );
  });

  it('never makes any function throw on near-valid rich text', () => {
    fc.assert(
      fc.property(blocks, (value) => runEverything(value)),
      { numRuns: 1_000 },
    );
  });

  it('never throws on nesting far deeper than any limit', () => {
    let deep: unknown = { type: 'text', text: 'bottom' };
    for (let i = 0; i < 50_000; i++) deep = { type: 'rich_text_section', elements: [deep] };
    runEverything([{ type: 'rich_text', elements: [deep] }]);
    let arrays: unknown = [];
    for (let i = 0; i < 50_000; i++) arrays = [arrays];
    runEverything(arrays);
  });

  it('serialises every value that validateBlocks accepts without changing it', async () => {
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(blocks, async (value) => {
        if (validateBlocks(value, 'b').length > 0) return;
        accepted++;
        payload = value;
        const response = await app.inject({ method: 'GET', url: '/blocks' });
        assert.equal(response.statusCode, 200, response.body);
        assert.deepEqual(response.json(), value);
      }),
      { numRuns: 400 },
    );
    // Guards the property against passing vacuously.
    assert.ok(accepted >= 20, `only ${accepted} generated values were valid`);
  });
});
