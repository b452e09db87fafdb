import type { JsonRecord } from './json-guards.js';

/*
 * Slack's `mrkdwn` text (the text objects of Block Kit `section`, `context` and `header`
 * blocks) read into the inline elements of a rich text section, so that the renderers and the
 * mention extraction deal with one form. What it reads: `<@U1>` and `<@U1|name>` users,
 * `<#C1>` / `<#C1|name>` channels, `<!here>` / `<!channel>` / `<!everyone>`, `<!subteam^S1>`
 * user groups, `<!date^ts^format|fallback>` dates, `<url>` / `<url|label>` links, `*bold*`,
 * `_italic_`, `~strike~`, `` `code` `` and ```` ```code``` ````, and the three entities Slack
 * escapes (`&amp;`, `&lt;`, `&gt;`). Emoji shortcodes (`:wave:`) stay text, as the chat
 * platform writes them. Anything else is text as it stands: the reading never fails.
 */

type Mark = 'bold' | 'italic' | 'strike';
type Style = Partial<Record<Mark | 'code', true>>;

const MARKS: Readonly<Record<string, Mark>> = { '*': 'bold', _: 'italic', '~': 'strike' };
// A delimiter opens after these (or at the start) and closes before these (or at the end).
const BEFORE_OPEN = /[\s([{"'>*_~]/;
const AFTER_CLOSE = /[\s)\]}.,;:!?"'<*_~-]/;
const MAX_LENGTH = 100_000;

/** The inline elements (text, user, channel, link, ...) that a mrkdwn text reads as. */
export function mrkdwnElements(text: string): JsonRecord[] {
  const out: JsonRecord[] = [];
  readInline(text.slice(0, MAX_LENGTH), {}, out, 0);
  return out;
}

/** Text with Slack's three escaped entities decoded. */
function decodeEntities(text: string): string {
  return text.replace(/&(amp|lt|gt);/g, (_, name: string) => (name === 'amp' ? '&' : name === 'lt' ? '<' : '>'));
}

function readInline(text: string, style: Style, out: JsonRecord[], depth: number): void {
  let buffer = '';
  const flush = () => {
    if (buffer !== '') out.push(textElement(decodeEntities(buffer), style));
    buffer = '';
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === '<') {
      const end = text.indexOf('>', i + 1);
      if (end > i + 1) {
        flush();
        out.push(angleElement(text.slice(i + 1, end), style));
        i = end + 1;
        continue;
      }
    }
    if (c === '`') {
      const fence = text.startsWith('```', i) ? '```' : '`';
      const end = text.indexOf(fence, i + fence.length);
      if (end > i + fence.length) {
        flush();
        out.push(textElement(decodeEntities(text.slice(i + fence.length, end).replace(/^\n|\n$/g, '')), { ...style, code: true }));
        i = end + fence.length;
        continue;
      }
    }
    const mark = MARKS[c];
    if (mark !== undefined && style[mark] === undefined && depth < 3 && opensAt(text, i)) {
      const close = closingAt(text, i, c);
      if (close > 0) {
        flush();
        readInline(text.slice(i + 1, close), { ...style, [mark]: true }, out, depth + 1);
        i = close + 1;
        continue;
      }
    }
    buffer += c;
    i++;
  }
  flush();
}

function opensAt(text: string, i: number): boolean {
  const before = i === 0 ? ' ' : (text[i - 1] as string);
  const after = text[i + 1];
  return BEFORE_OPEN.test(before) && after !== undefined && !/\s/.test(after) && after !== text[i];
}

/** Index of the delimiter that closes the one at `open`, on the same line, or -1. */
function closingAt(text: string, open: number, delimiter: string): number {
  for (let j = open + 2; j < text.length; j++) {
    const c = text[j];
    if (c === '\n') return -1;
    if (c !== delimiter) continue;
    const after = j + 1 === text.length ? ' ' : (text[j + 1] as string);
    if (!/\s/.test(text[j - 1] as string) && AFTER_CLOSE.test(after)) return j;
  }
  return -1;
}

function textElement(text: string, style: Style): JsonRecord {
  return Object.keys(style).length === 0 ? { type: 'text', text } : { type: 'text', text, style: { ...style } };
}

// `<...>`: a mention, a special command or a link; `|` separates the label.
function angleElement(inner: string, style: Style): JsonRecord {
  const bar = inner.indexOf('|');
  const target = bar < 0 ? inner : inner.slice(0, bar);
  const label = bar < 0 ? undefined : decodeEntities(inner.slice(bar + 1));
  if (target.startsWith('@') && target.length > 1) return { type: 'user', user_id: target.slice(1) };
  if (target.startsWith('#') && target.length > 1) return { type: 'channel', channel_id: target.slice(1) };
  if (target.startsWith('!')) return commandElement(target.slice(1), label);
  const url = decodeEntities(target);
  const link: JsonRecord = label === undefined || label === '' ? { type: 'link', url } : { type: 'link', url, text: label };
  if (Object.keys(style).length > 0) link.style = { ...style };
  return link;
}

function commandElement(command: string, label: string | undefined): JsonRecord {
  const [name = '', ...args] = command.split('^');
  if (name === 'here' || name === 'channel' || name === 'everyone') return { type: 'broadcast', range: name };
  if (name === 'subteam' && args[0]) return { type: 'usergroup', usergroup_id: args[0] };
  if (name === 'date' && args[0] !== undefined) {
    const timestamp = Number(args[0]);
    const date: JsonRecord = { type: 'date', timestamp, format: args[1] ?? '{date}' };
    if (label !== undefined) date.fallback = label;
    if (args[2]) date.url = args[2];
    return date;
  }
  return { type: 'text', text: label ?? `<!${command}>` };
}
