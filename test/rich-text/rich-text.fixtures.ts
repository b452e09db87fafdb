// Builders for rich text blocks, so tests read like the content they describe.

type Json = Record<string, unknown>;

export function text(value: string, style?: Json): Json {
  return style === undefined ? { type: 'text', text: value } : { type: 'text', text: value, style };
}

export function section(...elements: unknown[]): Json {
  return { type: 'rich_text_section', elements };
}

export function list(style: string, items: unknown[], extra: Json = {}): Json {
  return { type: 'rich_text_list', style, elements: items, ...extra };
}

export function block(...elements: unknown[]): Json {
  return { type: 'rich_text', block_id: 'blk1', elements };
}

/** One block with one section holding the given inline elements. */
export function blocksOf(...inline: unknown[]): Json[] {
  return [block(section(...inline))];
}

/** One element of every inline type the spec documents, all well-formed. */
export const EVERY_INLINE_TYPE: readonly Json[] = [
  { type: 'broadcast', range: 'here' },
  { type: 'color', value: '#ff0000' },
  { type: 'channel', channel_id: 'C100', style: { bold: true, highlight: true } },
  { type: 'date', timestamp: 1_700_000_000, format: '{date_short}', url: 'https://example.com/d', fallback: 'Nov 14' },
  { type: 'emoji', name: 'smile', unicode: '1f604' },
  { type: 'link', url: 'https://example.com', text: 'Example', unsafe: false, style: { italic: true } },
  { type: 'text', text: 'plain', style: { bold: true, italic: false, strike: false, code: false } },
  { type: 'user', user_id: 'U100', style: { client_highlight: true, unlink: false } },
  { type: 'usergroup', usergroup_id: 'S100' },
];

/** Nests `levels` unknown containers inside a block's elements, innermost holding a user. */
export function nested(levels: number): Json[] {
  let inner: Json = { type: 'user', user_id: 'UDEEP' };
  for (let i = 0; i < levels; i++) inner = { type: 'mystery_container', elements: [inner] };
  return [{ type: 'rich_text', elements: [inner] }];
}
