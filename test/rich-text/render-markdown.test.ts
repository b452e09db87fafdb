import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderMarkdown } from '../../src/rich-text/index.js';
import { block, blocksOf, list, section, text } from './rich-text.fixtures.js';

const md = (...inline: unknown[]) => renderMarkdown(blocksOf(...inline));
const link = (url: string, label?: string, style?: Record<string, unknown>) => ({ type: 'link', url, text: label, style });

describe('renderMarkdown', () => {
  const styles: [string, Record<string, unknown>, string][] = [
    ['bold', { bold: true }, '**word**'],
    ['italic', { italic: true }, '_word_'],
    ['strike', { strike: true }, '~~word~~'],
    ['code', { code: true }, '`word`'],
    ['bold italic strike', { bold: true, italic: true, strike: true }, '**_~~word~~_**'],
  ];
  for (const [label, style, expected] of styles) {
    it(`writes ${label} text as ${expected}`, () => {
      assert.equal(md(text('word', style)), expected);
    });
  }

  it('keeps a mark open across runs that share it', () => {
    assert.equal(md(text('a ', { bold: true }), text('b', { bold: true, italic: true }), text(' c', { bold: true })), '**a _b_ c**');
  });

  it('moves spaces outside emphasis delimiters', () => {
    assert.equal(md(text('x'), text(' bold ', { bold: true }), text('y')), 'x **bold** y');
  });

  it('fences code that contains backticks with a longer run', () => {
    assert.equal(md(text('a`b', { code: true })), '``a`b``');
    assert.equal(md(text('`x', { code: true })), '`` `x ``');
  });

  it('does not escape inside code', () => {
    assert.equal(md(text('*a_b*', { code: true })), '`*a_b*`');
  });

  it('writes links as [text](url), with the url as text when there is none', () => {
    assert.equal(md(link('https://example.com', 'Example')), '[Example](https://example.com)');
    assert.equal(md(link('https://example.com')), '[https://example.com](https://example.com)');
  });

  it('styles inside the link and percent-encodes spaces and parentheses in the url', () => {
    assert.equal(md(link('https://x.example/a b(1)', 'see', { bold: true })), '[**see**](https://x.example/a%20b%281%29)');
  });

  it('writes links with unsafe schemes as plain text', () => {
    assert.equal(md(link('javascript:alert(1)', 'click')), 'click');
    assert.equal(md(link('data:text/html,hi')), 'data:text/html,hi');
  });

  it('escapes Markdown specials in text', () => {
    assert.equal(
      md(text('*a* _b_ `c` ~d~ [e](f) <g> h|i \\ &amp;')),
      '\\*a\\* \\_b\\_ \\`c\\` \\~d\\~ \\[e\\](f) \\<g> h\\|i \\\\ \\&amp;',
    );
  });

  it('escapes block syntax at the start of a line only', () => {
    assert.equal(md(text('# not a heading')), '\\# not a heading');
    assert.equal(md(text('> not a quote')), '\\> not a quote');
    assert.equal(md(text('- not a list')), '\\- not a list');
    assert.equal(md(text('+ not a list')), '\\+ not a list');
    assert.equal(md(text('2024. a year')), '2024\\. a year');
    assert.equal(md(text('a # b - c 1. d > e')), 'a # b - c 1. d > e');
  });

  it('turns a newline into a hard break and a blank line into a new paragraph', () => {
    assert.equal(md(text('one\n- two\n\nthree')), 'one\\\n\\- two\n\nthree');
  });

  it('renders mentions, emojis, dates and colors as text', () => {
    const inline = [
      { type: 'user', user_id: 'U1' },
      text(' '),
      { type: 'channel', channel_id: 'C1' },
      text(' '),
      { type: 'emoji', name: 'party_parrot' },
      { type: 'emoji', name: 'x', unicode: '1f600' },
      text(' '),
      { type: 'broadcast', range: 'channel' },
      text(' '),
      { type: 'color', value: '#fff' },
    ];
    assert.equal(md(...inline), '@U1 #C1 :party\\_parrot::x: @channel #fff');
  });

  it('links a date that has a url', () => {
    assert.equal(
      md({ type: 'date', timestamp: 0, format: '{date}', url: 'https://cal.example/e', fallback: 'Jan 1' }),
      '[Jan 1](https://cal.example/e)',
    );
  });

  it('separates paragraphs with a blank line', () => {
    assert.equal(renderMarkdown([block(section(text('a')), section(text('b')))]), 'a\n\nb');
  });

  it('writes bullet and ordered lists, keeping consecutive lists together', () => {
    const blocks = [
      block(
        section(text('Plan:\n')),
        list('bullet', [section(text('a')), section(text('b'))]),
        list('ordered', [section(text('c'))], { offset: 2 }),
        section(text('End')),
      ),
    ];
    assert.equal(renderMarkdown(blocks), 'Plan:\n\n- a\n- b\n3. c\n\nEnd');
  });

  it('nests indented lists four spaces per level and indents continuation lines', () => {
    const blocks = [
      block(
        list('ordered', [section(text('a\nmore'))]),
        list('bullet', [section(text('inner'))], { indent: 1 }),
        list('ordered', [section(text('b'))], { offset: 1 }),
      ),
    ];
    assert.equal(renderMarkdown(blocks), '1. a\\\n   more\n    - inner\n2. b');
  });

  it('puts a blank line before a nested ordered list that does not start at 1', () => {
    const blocks = [block(list('bullet', [section(text('a'))]), list('ordered', [section(text('x'))], { indent: 1, offset: 4 }))];
    assert.equal(renderMarkdown(blocks), '- a\n\n    5. x');
  });

  it('never indents a list more than one level below the list before it', () => {
    assert.equal(renderMarkdown([block(list('bullet', [section(text('deep'))], { indent: 3 }))]), '- deep');
  });

  it('renders quotes with "> " and preformatted text as a fenced code block', () => {
    const blocks = [
      block(
        { type: 'rich_text_quote', elements: [text('wise\nwords', { italic: true })] },
        { type: 'rich_text_preformatted', elements: [text('a ``` b\n*c*')] },
      ),
    ];
    assert.equal(renderMarkdown(blocks), '> _wise_\\\n> _words_\n\n````\na ``` b\n*c*\n````');
  });

  it('renders unknown elements by their text fallback, escaped', () => {
    assert.equal(md(text('see '), { type: 'sparkle', fallback: '*shiny*' }), 'see \\*shiny\\*');
  });

  for (const value of [
    null,
    42,
    'text',
    {},
    [[]],
    [{ type: 'rich_text', elements: [{ type: 'rich_text_list', style: 'ordered', elements: 'x' }] }],
  ]) {
    it(`renders ${JSON.stringify(value)} as an empty string`, () => {
      assert.equal(renderMarkdown(value), '');
    });
  }
});
