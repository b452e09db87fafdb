import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractMentions, renderMarkdown, renderPlaintext, renderProseMirror } from '../../src/rich-text/index.js';
import { mrkdwnElements } from '../../src/rich-text/mrkdwn.js';

const mrkdwn = (text: string) => ({ type: 'mrkdwn', text });
const sectionBlock = (text: string) => ({ type: 'section', text: mrkdwn(text) });

describe('mrkdwn text objects', () => {
  it('reads mentions, broadcasts, user groups, dates and links', () => {
    assert.deepEqual(
      mrkdwnElements('<@U1> <#C1|general> <!here> <!subteam^S1|@team> <!date^1700000000^{date}|Nov 14> <https://x.org|X> <mailto:a@b.org>'),
      [
        { type: 'user', user_id: 'U1' },
        { type: 'text', text: ' ' },
        { type: 'channel', channel_id: 'C1' },
        { type: 'text', text: ' ' },
        { type: 'broadcast', range: 'here' },
        { type: 'text', text: ' ' },
        { type: 'usergroup', usergroup_id: 'S1' },
        { type: 'text', text: ' ' },
        { type: 'date', timestamp: 1700000000, format: '{date}', fallback: 'Nov 14' },
        { type: 'text', text: ' ' },
        { type: 'link', url: 'https://x.org', text: 'X' },
        { type: 'text', text: ' ' },
        { type: 'link', url: 'mailto:a@b.org' },
      ],
    );
  });

  it('reads *bold*, _italic_, ~strike~, `code` and nested styles, and decodes &amp; &lt; &gt;', () => {
    assert.deepEqual(mrkdwnElements('*bold _both_* ~gone~ `a &lt; b` &amp; done'), [
      { type: 'text', text: 'bold ', style: { bold: true } },
      { type: 'text', text: 'both', style: { bold: true, italic: true } },
      { type: 'text', text: ' ' },
      { type: 'text', text: 'gone', style: { strike: true } },
      { type: 'text', text: ' ' },
      { type: 'text', text: 'a < b', style: { code: true } },
      { type: 'text', text: ' & done' },
    ]);
  });

  it('leaves delimiters that open or close nothing as text (snake_case, 2*3*4, a lone *)', () => {
    assert.deepEqual(mrkdwnElements('snake_case_name 2*3*4 a * b'), [{ type: 'text', text: 'snake_case_name 2*3*4 a * b' }]);
  });

  it('keeps emoji shortcodes as text', () => {
    assert.deepEqual(mrkdwnElements(':wave::skin-tone-2: hi'), [{ type: 'text', text: ':wave::skin-tone-2: hi' }]);
  });
});

describe('Block Kit layout blocks', () => {
  it('renders a section with its fields as paragraphs, and a header as a heading', () => {
    const blocks = [
      { type: 'header', text: { type: 'plain_text', text: 'Big *news*', emoji: true } },
      { type: 'section', text: mrkdwn('*Hi*'), fields: [mrkdwn('a'), { type: 'plain_text', text: '*b*' }] },
    ];
    assert.equal(renderPlaintext(blocks), 'Big *news*\nHi\na\n*b*');
    assert.equal(renderMarkdown(blocks), '# Big \\*news\\*\n\n**Hi**\n\na\n\n\\*b\\*');
  });

  it('renders a divider as a rule in Markdown and ProseMirror and as nothing in plain text', () => {
    const blocks = [sectionBlock('a'), { type: 'divider' }, sectionBlock('b')];
    assert.equal(renderPlaintext(blocks), 'a\nb');
    assert.equal(renderMarkdown(blocks), 'a\n\n---\n\nb');
    assert.deepEqual(renderProseMirror(blocks).content[1], { type: 'horizontal_rule' });
  });

  it('shows an image only when its URL could be a link; a workspace file by its url', () => {
    const unsafe = [{ type: 'image', image_url: 'javascript:alert(1)', alt_text: 'x' }];
    assert.equal(renderMarkdown(unsafe), '');
    assert.deepEqual(renderProseMirror(unsafe), { type: 'doc', content: [] });
    const file = [{ type: 'image', slack_file: { url: 'https://files.example.com/F1' }, alt_text: 'f' }];
    assert.equal(renderMarkdown(file), '![f](https://files.example.com/F1)');
    assert.equal(extractMentions(file).urls[0]?.is_image, true);
  });

  it('renders a context block as one line of its texts, without its images', () => {
    const blocks = [
      {
        type: 'context',
        elements: [{ type: 'image', image_url: 'https://x.org/a.png', alt_text: 'a' }, mrkdwn('by <@U1>'), mrkdwn('today')],
      },
    ];
    assert.equal(renderPlaintext(blocks, { userNames: new Map([['U1', 'Ada']]) }), 'by @Ada today');
    assert.deepEqual(extractMentions(blocks).userIds, ['U1']);
  });

  it('renders unknown blocks as nothing, or their text when they have one', () => {
    const blocks = [
      { type: 'call', call_id: 'R1' },
      { type: 'file', external_id: 'E1', source: 'remote' },
      { type: 'video', title: { type: 'plain_text', text: 'Demo' } },
    ];
    assert.equal(renderPlaintext(blocks), '');
    assert.equal(renderPlaintext([{ type: 'future_block', text: { type: 'plain_text', text: 'shown' } }]), 'shown');
  });
});
