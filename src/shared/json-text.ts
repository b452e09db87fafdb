/**
 * A record's JSON text as its module rendered it (the API's own answer), to be written as is into
 * a larger JSON text, a webhook payload, instead of parsed and serialised again: on an attendee
 * update with an endpoint the parse and the second serialisation were a third of what the webhook
 * added (docs/webhooks.md, 2026-11-24 evening). `fields` holds those of its top-level fields that
 * a reader needs without parsing the text (the outbox: a calendar event's `triggers_webhooks`).
 */
export class JsonText {
  constructor(
    readonly text: string,
    readonly fields: Readonly<Record<string, unknown>> = {},
  ) {}
}

const isJsonText = (value: unknown): value is JsonText => value instanceof JsonText;

/**
 * JSON.stringify, except that a JsonText, whether the value itself or the value of one of its own
 * properties, is written as its text. (Deeper ones are not looked for: no emitter nests them.)
 */
export function stringifyWithJsonText(value: unknown): string {
  if (isJsonText(value)) return value.text;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return JSON.stringify(value);
  const entries = Object.entries(value);
  if (!entries.some(([, member]) => isJsonText(member))) return JSON.stringify(value);
  const members: string[] = [];
  for (const [key, member] of entries) {
    const json = isJsonText(member) ? member.text : JSON.stringify(member);
    // As JSON.stringify does: a property whose value has no JSON (undefined, a function) is left out.
    if (json !== undefined) members.push(`${JSON.stringify(key)}:${json}`);
  }
  return `{${members.join(',')}}`;
}
