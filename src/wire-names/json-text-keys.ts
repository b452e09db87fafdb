import { toSlackName } from './wire-names.js';

/*
 * The answer's JSON text in the hosted product's spelling. Answers are often spliced from stored
 * JSON text (docs/performance.md, "Spliced JSON"), so they are renamed as text, exactly: every
 * string token of the document is matched whole (outside strings JSON has no quote character, so
 * a match always starts at a string's opening quote), and only tokens followed by a colon, the
 * keys, are renamed. String values are never touched, except the `source` value `"chat"`
 * (error prose is renamed where errors are sent: registerErrorHandler).
 */

const stringToken = /"((?:[^"\\]|\\.)*)"(\s*:)?/g;

/** The JSON text with keys in the hosted product's spelling; the same string when nothing changes. */
export function slackKeysInJson(json: string): string {
  if (!json.includes('chat') && !json.includes('partner_event_id')) return json;
  // The key whose value comes next, and where that value may start.
  let pendingKey: string | null = null;
  let valueFrom = -1;
  return json.replace(stringToken, (token: string, content: string, colon: string | undefined, offset: number) => {
    if (colon !== undefined) {
      pendingKey = content;
      valueFrom = offset + token.length;
      const renamed = toSlackName(content);
      return renamed === content ? token : `"${renamed}"${colon}`;
    }
    const key = pendingKey;
    const isValueOfKey = key !== null && json.slice(valueFrom, offset).trim() === '';
    pendingKey = null;
    if (!isValueOfKey) return token;
    return key === 'source' && content === 'chat' ? '"slack"' : token;
  });
}
