import type { InlineElement, RichTextList, RichTextSection, StrictRichTextBlock } from '../../rich-text/index.js';
import type { Rng } from './prng.js';
import { emojis, sentences, topics, words } from './vocabulary.js';

/** Who and what a piece of rich text may mention: chat user ids of profiles, chat channel ids of feeds. */
export interface MentionPool {
  userIds: readonly string[];
  channelIds: readonly string[];
}

const links = [
  'https://example.com/blog/community-update',
  'https://docs.example.org/guides/getting-started',
  'https://github.com/example/project/pull/42',
  'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
  'https://example.com/slides/deck.pdf',
  'https://cdn.example.com/photos/meetup.jpg',
  'https://vimeo.com/123456789',
] as const;

function styledText(rng: Rng): InlineElement {
  const text = rng.chance(0.5) ? rng.pick(sentences) : `${rng.pick(words)} ${rng.pick(words)} about ${rng.pick(topics)}`;
  if (rng.chance(0.75)) return { type: 'text', text: `${text} ` };
  const style = rng.pick([{ bold: true }, { italic: true }, { code: true }, { bold: true, italic: true }, { strike: true }]);
  return { type: 'text', text: `${text} `, style };
}

/** One inline element: mostly text, with the mentions, links and emoji real messages carry. */
function inline(rng: Rng, pool: MentionPool): InlineElement {
  const roll = rng.next();
  if (roll < 0.12 && pool.userIds.length > 0) return { type: 'user', user_id: rng.pick(pool.userIds) };
  if (roll < 0.17 && pool.channelIds.length > 0) return { type: 'channel', channel_id: rng.pick(pool.channelIds) };
  if (roll < 0.25) {
    const url = rng.pick(links);
    return rng.chance(0.5) ? { type: 'link', url, text: `${rng.pick(words)} ${rng.pick(words)}` } : { type: 'link', url };
  }
  if (roll < 0.33) {
    const emoji = rng.pick(emojis);
    return 'unicode' in emoji ? { type: 'emoji', name: emoji.name, unicode: emoji.unicode } : { type: 'emoji', name: emoji.name };
  }
  if (roll < 0.34) return { type: 'broadcast', range: 'here' };
  return styledText(rng);
}

function section(rng: Rng, pool: MentionPool, elements: number): RichTextSection {
  return { type: 'rich_text_section', elements: Array.from({ length: elements }, () => inline(rng, pool)) };
}

function list(rng: Rng, pool: MentionPool): RichTextList {
  const items = Array.from({ length: rng.int(2, 5) }, () => section(rng, pool, rng.int(1, 3)));
  return { type: 'rich_text_list', style: rng.chance(0.6) ? 'bullet' : 'ordered', elements: items, indent: 0 };
}

/**
 * Rich text blocks of about `paragraphs` sections, a list now and then. Sizes follow what chat
 * messages look like: most are a few sentences, some are long announcements.
 */
export function richText(rng: Rng, pool: MentionPool, paragraphs: number, blockId: string): StrictRichTextBlock[] {
  const elements: (RichTextSection | RichTextList)[] = [];
  for (let i = 0; i < paragraphs; i++) {
    elements.push(section(rng, pool, rng.int(1, 6)));
    if (rng.chance(0.2)) elements.push(list(rng, pool));
  }
  return [{ type: 'rich_text', block_id: blockId, elements }];
}
