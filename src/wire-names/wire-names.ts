/*
 * The two spellings of the wire format. The spec spells the chat platform `chat` and the partner
 * `partner` (`chat_user_id`, `partner_event_id`); the hosted product spells them `slack` and
 * `luma` (`slack_user_id`, `luma_event_id`). Names are stored and handled in the spec's spelling;
 * only the edge (HTTP, the OpenAPI document, the import file) ever sees the other one.
 */

export type WireNames = 'chat' | 'slack';

const partnerName = 'partner_event_id';
const lumaName = 'luma_event_id';

const replaceToken = (name: string, from: string, to: string): string =>
  name
    .split('_')
    .map((word) => (word === from ? to : word))
    .join('_');

/** The hosted product's spelling of an identifier of the spec (itself when it has no `chat` part). */
export function toSlackName(name: string): string {
  if (name === partnerName) return lumaName;
  return name.includes('chat') ? replaceToken(name, 'chat', 'slack') : name;
}

/** The spec's spelling of an identifier spelled either way. */
export function toChatName(name: string): string {
  if (name === lumaName) return partnerName;
  return name.includes('slack') ? replaceToken(name, 'slack', 'chat') : name;
}

// Identifiers inside prose: lower-case words joined by underscores (`invite_to_chat`), never a
// plain word, so "the chat platform" stays as it is.
const identifierInText = /\b[a-z0-9]+(?:_[a-z0-9]+)+\b/g;

/** Prose (an error message, a description) with every identifier in the hosted product's spelling. */
export function slackNamesInText(text: string): string {
  if (!text.includes('chat') && !text.includes(partnerName)) return text;
  return text.replace(identifierInText, toSlackName);
}

/** A copy of a JSON value with every object key renamed (values other than keys are kept as they are). */
export function renameKeysDeep(value: unknown, rename: (key: string) => string): unknown {
  if (Array.isArray(value)) return value.map((item) => renameKeysDeep(item, rename));
  if (typeof value !== 'object' || value === null) return value;
  // No prototype: a key such as "__proto__" stays an ordinary key.
  const renamed: Record<string, unknown> = Object.create(null);
  for (const [key, item] of Object.entries(value)) renamed[rename(key)] = renameKeysDeep(item, rename);
  return renamed;
}
