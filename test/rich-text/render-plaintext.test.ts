import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderPlaintext } from '../../src/rich-text/index.js';
import { block, blocksOf, list, section, text } from './rich-text.fixtures.js';

const plain = (...inline: unknown[]) => renderPlaintext(blocksOf(...inline));

describe('renderPlaintext', () => {
  const inlineCases: [string, Record<string, unknown>, string][] = [
    ['text', { type: 'text', text: 'hello', style: { bold: true } }, 'hello'],
    ['user', { type: 'user', user_id: 'U1' }, '@U1'],
    ['channel', { type: 'channel', channel_id: 'C1' }, '#C1'],
    ['usergroup', { type: 'usergroup', usergroup_id: 'S1' }, '@S1'],
    ['broadcast here', { type: 'broadcast', range: 'here' }, '@here'],
    ['broadcast everyone', { type: 'broadcast', range: 'everyone' }, '@everyone'],
    ['emoji with unicode, as its shortcode', { type: 'emoji', name: 'grinning', unicode: '1f600' }, ':grinning:'],
    ['emoji with skin tone', { type: 'emoji', name: '+1', unicode: '1f44d-1f3fb', skin_tone: 2 }, ':+1::skin-tone-2:'],
    ['emoji whose name has the skin tone', { type: 'emoji', name: 'wave::skin-tone-3', skin_tone: 3 }, ':wave::skin-tone-3:'],
    ['emoji with only unicode', { type: 'emoji', unicode: '1f600' }, '😀'],
    ['emoji without unicode', { type: 'emoji', name: 'partyparrot' }, ':partyparrot:'],
    ['emoji with a bad unicode', { type: 'emoji', name: 'odd', unicode: 'd800' }, ':odd:'],
    ['date with fallback', { type: 'date', timestamp: 1_700_000_000, format: '{date}', fallback: 'Nov 14th' }, 'Nov 14th'],
    ['date without fallback', { type: 'date', timestamp: 1_700_000_000, format: '{date_short}' }, '2023-11-14'],
    ['date with a time format', { type: 'date', timestamp: 1_700_000_000, format: '{date_num} {time}' }, '2023-11-14T22:13:20Z'],
    ['link with text', { type: 'link', url: 'https://example.com', text: 'Example' }, 'Example'],
    ['link without text', { type: 'link', url: 'https://example.com' }, 'https://example.com'],
    ['color', { type: 'color', value: '#00ff00' }, '#00ff00'],
  ];
  for (const [label, element, expected] of inlineCases) {
    it(`renders ${label} as "${expected}"`, () => {
      assert.equal(plain(element), expected);
    });
  }

  it('shows resolved names for users, channels and usergroups', () => {
    const options = {
      userNames: new Map([['U1', 'Ann Lee']]),
      channelNames: new Map([['C1', 'general']]),
      usergroupNames: new Map([['S1', 'admins']]),
    };
    const blocks = blocksOf(
      { type: 'user', user_id: 'U1' },
      text(' '),
      { type: 'user', user_id: 'U2' },
      text(' '),
      { type: 'channel', channel_id: 'C1' },
      text(' '),
      {
        type: 'usergroup',
        usergroup_id: 'S1',
      },
    );
    assert.equal(renderPlaintext(blocks, options), '@Ann Lee @U2 #general @admins');
  });

  it('joins sections with newlines and keeps newlines inside text', () => {
    const blocks = [block(section(text('one\ntwo')), section(text('three'))), block(section(text('four')))];
    assert.equal(renderPlaintext(blocks), 'one\ntwo\nthree\nfour');
  });

  it('drops the trailing newline Slack puts before a list', () => {
    const blocks = [block(section(text('Agenda:\n')), list('bullet', [section(text('a'))]))];
    assert.equal(renderPlaintext(blocks), 'Agenda:\n- a');
  });

  it('prefixes bullet items with "- " and ordered items with their number, honouring offset', () => {
    const blocks = [
      block(
        list('bullet', [section(text('a')), section(text('b'))]),
        list('ordered', [section(text('one')), section(text('two'))]),
        list('ordered', [section(text('three'))], { offset: 2 }),
      ),
    ];
    assert.equal(renderPlaintext(blocks), '- a\n- b\n1. one\n2. two\n3. three');
  });

  it('indents nested lists and lines up continuation lines under the item text', () => {
    const blocks = [block(list('ordered', [section(text('first\nmore'))]), list('bullet', [section(text('inner'))], { indent: 1 }))];
    assert.equal(renderPlaintext(blocks), '1. first\n   more\n  - inner');
  });

  it('renders quotes and preformatted text as their text', () => {
    const blocks = [
      block({ type: 'rich_text_quote', elements: [text('wise words')] }, { type: 'rich_text_preformatted', elements: [text('npm test')] }),
    ];
    assert.equal(renderPlaintext(blocks), 'wise words\nnpm test');
  });

  const fallbacks: [string, Record<string, unknown>, string][] = [
    ['text', { type: 'sparkle', text: 'from text', fallback: 'no' }, 'from text'],
    ['a text object', { type: 'mrkdwn_thing', text: { type: 'mrkdwn', text: 'nested text' } }, 'nested text'],
    ['fallback', { type: 'sparkle', fallback: 'from fallback', url: 'https://no' }, 'from fallback'],
    ['url', { type: 'sparkle', url: 'https://from.url', name: 'no' }, 'https://from.url'],
    ['name', { type: 'sparkle', name: 'from name' }, 'from name'],
    ['nothing', { type: 'sparkle', value: 3 }, ''],
  ];
  for (const [source, element, expected] of fallbacks) {
    it(`renders an unknown inline element from its ${source}`, () => {
      assert.equal(plain(text('['), element, text(']')), `[${expected}]`);
    });
  }

  it('renders unknown containers by their children and unknown blocks by their text', () => {
    const blocks = [
      { type: 'header', text: { type: 'plain_text', text: 'Title' } },
      block({ type: 'rich_text_future', elements: [text('child '), { type: 'user', user_id: 'U1' }] }),
    ];
    assert.equal(renderPlaintext(blocks), 'Title\nchild @U1');
  });

  it('renders known elements with unusable fields by the fallback rule', () => {
    assert.equal(
      plain({ type: 'user', user_id: 5, fallback: 'someone' }, { type: 'text', text: null }, { type: 'date', timestamp: 'x', format: 'y' }),
      'someone',
    );
  });

  for (const value of [null, undefined, 0, 'text', {}, [], [null, 1, 'x', []], [{ type: 'rich_text', elements: [null, 5, 'x'] }]]) {
    it(`renders ${JSON.stringify(value) ?? 'undefined'} as an empty string`, () => {
      assert.equal(renderPlaintext(value), '');
    });
  }
});
