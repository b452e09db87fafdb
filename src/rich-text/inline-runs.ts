import { isRecord, type JsonRecord, MAX_NESTING_DEPTH, readElements, readNonEmptyString, readString } from './json-guards.js';

/** Names that mentions are shown with, by chat id (without the leading `@` or `#`). */
export interface RenderOptions {
  readonly userNames?: ReadonlyMap<string, string>;
  readonly channelNames?: ReadonlyMap<string, string>;
  readonly usergroupNames?: ReadonlyMap<string, string>;
}

export interface Marks {
  readonly bold: boolean;
  readonly italic: boolean;
  readonly strike: boolean;
  readonly code: boolean;
}

/** A stretch of text with one set of marks; `href` only for links with a safe scheme. */
export interface Run {
  readonly text: string;
  readonly marks: Marks;
  readonly href?: string;
}

const NO_MARKS: Marks = { bold: false, italic: false, strike: false, code: false };

// Renderers hand these hrefs to Markdown and ProseMirror consumers, who put them in HTML:
// anything else (javascript:, data:, relative paths) is shown as text, never as a link.
const SAFE_HREF = /^(https?:\/\/|mailto:|tel:)/i;

/** The text runs a reader sees for one element; unknown types fall back to their text. */
export function inlineRuns(element: unknown, options: RenderOptions, depth: number): Run[] {
  if (depth > MAX_NESTING_DEPTH || !isRecord(element)) return [];
  const known = knownElementRuns(element, options);
  if (known !== undefined) return known;
  const children = readElements(element);
  if (children !== undefined) {
    return children.flatMap((child) => inlineRuns(child, options, depth + 1));
  }
  return plainRuns(fallbackText(element));
}

/** Text of an element the renderers do not understand: text, fallback, url, then name. */
export function fallbackText(element: JsonRecord): string {
  const text = element.text;
  if (typeof text === 'string' && text !== '') return text;
  // Block Kit composition objects ({type: 'mrkdwn', text}) carry their text one level down.
  if (isRecord(text)) {
    const nested = readNonEmptyString(text, 'text');
    if (nested !== undefined) return nested;
  }
  return readNonEmptyString(element, 'fallback') ?? readNonEmptyString(element, 'url') ?? readNonEmptyString(element, 'name') ?? '';
}

/** The href to link to, or undefined when the URL is not http(s), mailto or tel. */
export function safeHref(url: string): string | undefined {
  if (!SAFE_HREF.test(url)) return undefined;
  try {
    new URL(url);
    return url;
  } catch {
    return undefined;
  }
}

/** The character(s) of a Slack unicode field ("1f44d-1f3fb"), or undefined if it is not one. */
function emojiFromUnicode(unicode: string): string | undefined {
  if (!/^[0-9a-f]{1,6}(-[0-9a-f]{1,6})*$/i.test(unicode)) return undefined;
  const codePoints = unicode.split('-').map((hex) => Number.parseInt(hex, 16));
  const valid = codePoints.every((point) => point <= 0x10ffff && (point < 0xd800 || point > 0xdfff));
  return valid ? String.fromCodePoint(...codePoints) : undefined;
}

// Returns undefined for unknown types and for known types whose required field is unusable,
// so both end up in the generic fallback.
function knownElementRuns(element: JsonRecord, options: RenderOptions): Run[] | undefined {
  const marks = marksOf(element.style);
  switch (element.type) {
    case 'text': {
      const text = readString(element, 'text');
      return text === undefined ? undefined : [{ text, marks }];
    }
    case 'link': {
      const url = readNonEmptyString(element, 'url');
      if (url === undefined) return undefined;
      const text = readNonEmptyString(element, 'text') ?? url;
      return [withHref({ text, marks }, safeHref(url))];
    }
    case 'user':
      return mention(element, 'user_id', '@', options.userNames, marks);
    case 'channel':
      return mention(element, 'channel_id', '#', options.channelNames, marks);
    case 'usergroup':
      return mention(element, 'usergroup_id', '@', options.usergroupNames, marks);
    case 'broadcast': {
      const range = readNonEmptyString(element, 'range');
      return range === undefined ? undefined : plainRuns(`@${range}`);
    }
    case 'emoji':
      return emojiRuns(element);
    case 'date':
      return dateRuns(element);
    case 'color': {
      const value = readString(element, 'value');
      return value === undefined ? undefined : plainRuns(value);
    }
    default:
      return undefined;
  }
}

function mention(
  element: JsonRecord,
  idKey: string,
  sigil: string,
  names: ReadonlyMap<string, string> | undefined,
  marks: Marks,
): Run[] | undefined {
  const id = readNonEmptyString(element, idKey);
  if (id === undefined) return undefined;
  const name = names?.get(id);
  return [{ text: `${sigil}${name !== undefined && name !== '' ? name : id}`, marks }];
}

// Emoji stay shortcodes, as the chat platform writes them and the hosted product answers
// (`:wave::skin-tone-2:`); only an emoji without a name falls back to its code points.
function emojiRuns(element: JsonRecord): Run[] | undefined {
  const name = readNonEmptyString(element, 'name');
  if (name !== undefined) return plainRuns(`:${name}:${skinToneSuffix(name, element.skin_tone)}`);
  const unicode = readString(element, 'unicode');
  const character = unicode === undefined ? undefined : emojiFromUnicode(unicode);
  return character === undefined ? undefined : plainRuns(character);
}

/** Slack's skin tone suffix (`:skin-tone-2:` ... `:skin-tone-6:`) unless the name already carries one. */
function skinToneSuffix(name: string, tone: unknown): string {
  if (typeof tone !== 'number' || !Number.isInteger(tone) || tone < 2 || tone > 6 || name.includes('skin-tone')) return '';
  return `:skin-tone-${tone}:`;
}

function dateRuns(element: JsonRecord): Run[] | undefined {
  const text = readNonEmptyString(element, 'fallback') ?? isoDate(element);
  if (text === undefined) return undefined;
  const url = readNonEmptyString(element, 'url');
  return [withHref({ text, marks: NO_MARKS }, url === undefined ? undefined : safeHref(url))];
}

// Slack timestamps are seconds. The format tokens ({date_short}, {time}, ...) depend on the
// reader's locale and time zone, which we do not know: show the UTC date, and the UTC time
// too when the format asks for one.
function isoDate(element: JsonRecord): string | undefined {
  const timestamp = element.timestamp;
  if (typeof timestamp !== 'number' || !Number.isFinite(timestamp)) return undefined;
  const date = new Date(timestamp * 1000);
  if (Number.isNaN(date.getTime())) return undefined;
  // Split rather than slice: years past 9999 come out as "+010000-01-01T...".
  const [day = '', time = ''] = date.toISOString().split('T');
  const format = readString(element, 'format') ?? '';
  return /\{(time|time_secs|ago)\}/.test(format) ? `${day}T${time.slice(0, 8)}Z` : day;
}

function marksOf(style: unknown): Marks {
  if (!isRecord(style)) return NO_MARKS;
  return {
    bold: style.bold === true,
    italic: style.italic === true,
    strike: style.strike === true,
    code: style.code === true,
  };
}

function withHref(run: Run, href: string | undefined): Run {
  return href === undefined ? run : { ...run, href };
}

function plainRuns(text: string): Run[] {
  return text === '' ? [] : [{ text, marks: NO_MARKS }];
}
