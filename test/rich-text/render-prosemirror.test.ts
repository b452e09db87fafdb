import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderProseMirror } from '../../src/rich-text/index.js';
import { block, blocksOf, list, section, text } from './rich-text.fixtures.js';

const paragraph = (...content: unknown[]) => ({ type: 'paragraph', content });
const t = (value: string, ...marks: unknown[]) =>
  marks.length === 0 ? { type: 'text', text: value } : { type: 'text', text: value, marks };
const item = (...content: unknown[]) => ({ type: 'list_item', content });
const doc = (...content: unknown[]) => ({ type: 'doc', content });

describe('renderProseMirror', () => {
  it('renders an empty array, and anything that is not an array, as an empty doc', () => {
    for (const value of [[], null, undefined, 3, 'x', {}, [null, 'x', 4]]) {
      assert.deepEqual(renderProseMirror(value), { type: 'doc', content: [] });
    }
  });

  it('turns each section into a paragraph of text nodes', () => {
    assert.deepEqual(renderProseMirror([block(section(text('a')), section(text('b')))]), doc(paragraph(t('a')), paragraph(t('b'))));
  });

  it('maps bold, italic, strike and code styles to marks', () => {
    const result = renderProseMirror(blocksOf(text('x', { bold: true, italic: true, strike: true, code: true }), text(' plain')));
    assert.deepEqual(
      result,
      doc(paragraph(t('x', { type: 'bold' }, { type: 'italic' }, { type: 'strike' }, { type: 'code' }), t(' plain'))),
    );
  });

  it('gives links a link mark with href, combined with their style', () => {
    const result = renderProseMirror(blocksOf({ type: 'link', url: 'https://example.com', text: 'Ex', style: { bold: true } }));
    assert.deepEqual(result, doc(paragraph(t('Ex', { type: 'link', attrs: { href: 'https://example.com' } }, { type: 'bold' }))));
  });

  it('renders links with unsafe schemes as unmarked text', () => {
    assert.deepEqual(renderProseMirror(blocksOf({ type: 'link', url: 'javascript:alert(1)', text: 'x' })), doc(paragraph(t('x'))));
  });

  it('renders mentions as text, by name when a name is known', () => {
    const blocks = blocksOf({ type: 'user', user_id: 'U1', style: { bold: true } }, text(' in '), { type: 'channel', channel_id: 'C1' });
    assert.deepEqual(
      renderProseMirror(blocks, { userNames: new Map([['U1', 'Ann']]) }),
      doc(paragraph(t('@Ann', { type: 'bold' }), t(' in #C1'))),
    );
  });

  it('splits newlines inside text into hard_break nodes', () => {
    assert.deepEqual(
      renderProseMirror(blocksOf(text('a\nb\n\nc'))),
      doc(paragraph(t('a'), { type: 'hard_break' }, t('b'), { type: 'hard_break' }, { type: 'hard_break' }, t('c'))),
    );
  });

  it('renders bullet and ordered lists of list_item > paragraph, ordered lists with their start', () => {
    const blocks = [block(list('bullet', [section(text('a')), section(text('b'))]), list('ordered', [section(text('c'))], { offset: 4 }))];
    assert.deepEqual(
      renderProseMirror(blocks),
      doc(
        { type: 'bullet_list', content: [item(paragraph(t('a'))), item(paragraph(t('b')))] },
        { type: 'ordered_list', attrs: { order: 5 }, content: [item(paragraph(t('c')))] },
      ),
    );
  });

  it('nests an indented list in the last item of the list before it, and continues the outer list after it', () => {
    const blocks = [
      block(
        list('ordered', [section(text('one'))]),
        list('bullet', [section(text('inner'))], { indent: 1 }),
        list('ordered', [section(text('two'))], { offset: 1 }),
      ),
    ];
    assert.deepEqual(
      renderProseMirror(blocks),
      doc({
        type: 'ordered_list',
        attrs: { order: 1 },
        content: [item(paragraph(t('one')), { type: 'bullet_list', content: [item(paragraph(t('inner')))] }), item(paragraph(t('two')))],
      }),
    );
  });

  it('starts a new list after a paragraph, and keeps an empty list item as an empty paragraph', () => {
    const blocks = [block(list('bullet', [section(text('a'))]), section(text('p')), list('bullet', [section()]))];
    assert.deepEqual(
      renderProseMirror(blocks),
      doc({ type: 'bullet_list', content: [item(paragraph(t('a')))] }, paragraph(t('p')), {
        type: 'bullet_list',
        content: [item({ type: 'paragraph' })],
      }),
    );
  });

  it('renders quotes as blockquote and preformatted text as code_block', () => {
    const blocks = [
      block(
        { type: 'rich_text_quote', elements: [text('q')] },
        { type: 'rich_text_preformatted', elements: [text('a\nb', { bold: true })] },
      ),
    ];
    assert.deepEqual(
      renderProseMirror(blocks),
      doc({ type: 'blockquote', content: [paragraph(t('q'))] }, { type: 'code_block', content: [t('a\nb')] }),
    );
  });

  it('renders unknown elements through the text fallback', () => {
    const blocks = [
      block(section(text('a '), { type: 'sparkle', url: 'https://s.example' })),
      { type: 'header', text: { type: 'plain_text', text: 'H' } },
    ];
    // A Slack header block is a level-1 heading since real Block Kit blocks are rendered (docs/rich-text.md).
    assert.deepEqual(renderProseMirror(blocks), {
      type: 'doc',
      content: [paragraph(t('a https://s.example')), { type: 'heading', content: [t('H')], attrs: { level: 1 } }],
    });
  });

  it('never produces empty text nodes', () => {
    const result = JSON.stringify(renderProseMirror(blocksOf(text(''), text('\n'), text('x'), text(''), { type: 'emoji', name: '' })));
    assert.ok(!result.includes('"text":""'), result);
  });
});
