import { isRecord, type JsonRecord, MAX_ELEMENT_COUNT, MAX_NESTING_DEPTH } from './json-guards.js';

// Where an element sits decides which known types may appear there. Unknown types are
// accepted anywhere; inside them ('any') known types are still checked field by field.
type Placement = 'block' | 'block-element' | 'list-item' | 'inline' | 'any';

type FieldKind = 'string' | 'id' | 'number' | 'count' | 'boolean';

interface FieldRule {
  readonly key: string;
  readonly kind: FieldKind;
  readonly required: boolean;
  readonly oneOf?: readonly string[];
  readonly pattern?: { readonly regex: RegExp; readonly message: string };
}

const TEXT_STYLE_FLAGS = ['bold', 'italic', 'strike', 'code'] as const;
const MENTION_STYLE_FLAGS = ['bold', 'italic', 'strike', 'highlight', 'client_highlight', 'unlink'] as const;

const BLOCK_TYPES: ReadonlySet<string> = new Set(['rich_text']);
const BLOCK_ELEMENT_TYPES: ReadonlySet<string> = new Set([
  'rich_text_section',
  'rich_text_list',
  'rich_text_quote',
  'rich_text_preformatted',
]);
const LIST_ITEM_TYPES: ReadonlySet<string> = new Set(['rich_text_section']);
const INLINE_TYPES: ReadonlySet<string> = new Set(['broadcast', 'color', 'channel', 'date', 'emoji', 'link', 'text', 'user', 'usergroup']);

const ALLOWED: Record<Exclude<Placement, 'any'>, ReadonlySet<string>> = {
  block: BLOCK_TYPES,
  'block-element': BLOCK_ELEMENT_TYPES,
  'list-item': LIST_ITEM_TYPES,
  inline: INLINE_TYPES,
};

const PLACEMENT_LABEL: Record<Exclude<Placement, 'any'>, string> = {
  block: 'the list of blocks (expected a block such as "rich_text")',
  'block-element': 'a rich_text block (expected rich_text_section or rich_text_list)',
  'list-item': 'a rich_text_list (expected rich_text_section)',
  inline: 'a section (expected an inline element)',
};

// Types whose `elements` must be present; each maps to the placement of its children.
const CONTAINERS: ReadonlyMap<string, Placement> = new Map<string, Placement>([
  ['rich_text', 'block-element'],
  ['rich_text_section', 'inline'],
  ['rich_text_quote', 'inline'],
  ['rich_text_preformatted', 'inline'],
  ['rich_text_list', 'list-item'],
]);

const optional = (key: string, kind: FieldKind): FieldRule => ({ key, kind, required: false });
const required = (key: string, kind: FieldKind): FieldRule => ({ key, kind, required: true });

// Maps, not object literals: a type named "constructor" must not find Object.prototype.
const FIELD_RULES: ReadonlyMap<string, readonly FieldRule[]> = new Map(
  Object.entries({
    rich_text_list: [
      { key: 'style', kind: 'string', required: true, oneOf: ['bullet', 'ordered'] },
      optional('indent', 'count'),
      optional('offset', 'count'),
    ],
    broadcast: [{ key: 'range', kind: 'string', required: true, oneOf: ['here', 'channel', 'everyone'] }],
    color: [required('value', 'string')],
    channel: [required('channel_id', 'id')],
    date: [required('timestamp', 'number'), required('format', 'string'), optional('url', 'string'), optional('fallback', 'string')],
    emoji: [
      required('name', 'id'),
      {
        key: 'unicode',
        kind: 'string',
        required: false,
        pattern: {
          regex: /^[0-9a-f]{1,6}(-[0-9a-f]{1,6})*$/i,
          message: 'must be hex code points joined by "-" (e.g. "1f44d-1f3fb")',
        },
      },
    ],
    link: [required('url', 'id'), optional('text', 'string'), optional('unsafe', 'boolean')],
    text: [required('text', 'string')],
    user: [required('user_id', 'id')],
    usergroup: [required('usergroup_id', 'id')],
  }),
);

const STYLE_FLAGS: ReadonlyMap<string, readonly string[]> = new Map<string, readonly string[]>([
  ['text', TEXT_STYLE_FLAGS],
  ['link', TEXT_STYLE_FLAGS],
  ['user', MENTION_STYLE_FLAGS],
  ['channel', MENTION_STYLE_FLAGS],
  ['usergroup', MENTION_STYLE_FLAGS],
]);

const BLOCK_ID_RULE = optional('block_id', 'string');

const KIND_MESSAGE: Record<FieldKind, string> = {
  string: 'must be a string',
  id: 'must be a non-empty string',
  number: 'must be a finite number',
  count: 'must be a non-negative integer',
  boolean: 'must be a boolean',
};

const MAX_PROBLEMS = 100;

interface Walk {
  readonly rootPath: string;
  readonly problems: string[];
  elementCount: number;
  halted: boolean;
}

/** Lists what is structurally wrong with a value meant to be rich text blocks; [] when fine. */
export function validateBlocks(value: unknown, path: string): string[] {
  if (!Array.isArray(value)) return [`${path}: must be an array of rich text blocks`];
  const walk: Walk = { rootPath: path, problems: [], elementCount: 0, halted: false };
  checkArray(value, path, 'block', 1, walk);
  return walk.problems;
}

function report(walk: Walk, problem: string): void {
  if (walk.halted) return;
  if (walk.problems.length >= MAX_PROBLEMS) {
    walk.problems.push(`${walk.rootPath}: more than ${MAX_PROBLEMS} problems; stopped checking`);
    walk.halted = true;
    return;
  }
  walk.problems.push(problem);
}

function checkArray(items: readonly unknown[], path: string, placement: Placement, depth: number, walk: Walk): void {
  for (let i = 0; i < items.length && !walk.halted; i++) {
    checkElement(items[i], `${path}[${i}]`, placement, depth, walk);
  }
}

function checkElement(value: unknown, path: string, placement: Placement, depth: number, walk: Walk): void {
  walk.elementCount++;
  if (walk.elementCount > MAX_ELEMENT_COUNT) {
    report(walk, `${walk.rootPath}: more than ${MAX_ELEMENT_COUNT} elements`);
    walk.halted = true;
    return;
  }
  if (depth > MAX_NESTING_DEPTH) {
    report(walk, `${path}: nested deeper than ${MAX_NESTING_DEPTH} levels`);
    return;
  }
  if (!isRecord(value)) {
    report(walk, `${path}: must be an object`);
    return;
  }
  const type = value.type;
  if (typeof type !== 'string' || type === '') {
    report(walk, `${path}.type: ${type === undefined ? 'required' : 'must be a non-empty string'}`);
    checkChildren(value, path, undefined, 'any', depth, walk);
    return;
  }
  const known = isKnownType(type);
  if (known && placement !== 'any' && !ALLOWED[placement].has(type)) {
    report(walk, `${path}.type: "${type}" is not allowed in ${PLACEMENT_LABEL[placement]}`);
  }
  const noun = placement === 'block' ? 'block type' : 'element type';
  // block_id is declared as a string by the response schema whatever the block type.
  if (placement === 'block') checkField(value, path, type, noun, BLOCK_ID_RULE, walk);
  for (const rule of FIELD_RULES.get(type) ?? []) checkField(value, path, type, noun, rule, walk);
  const flags = STYLE_FLAGS.get(type);
  if (flags !== undefined) checkStyle(value.style, `${path}.style`, flags, walk);
  const childPlacement = CONTAINERS.get(type);
  const containerType = childPlacement === undefined ? undefined : type;
  checkChildren(value, path, containerType, childPlacement ?? 'any', depth, walk);
}

function isKnownType(type: string): boolean {
  return BLOCK_TYPES.has(type) || BLOCK_ELEMENT_TYPES.has(type) || INLINE_TYPES.has(type);
}

// `elements` is checked on every object, known or not: responses declare it as an array of
// objects with a string `type`, and the serializer would fail on anything else.
function checkChildren(
  value: JsonRecord,
  path: string,
  containerType: string | undefined,
  placement: Placement,
  depth: number,
  walk: Walk,
): void {
  const elements = value.elements;
  if (elements === undefined) {
    if (containerType !== undefined) {
      const noun = containerType === 'rich_text' ? 'block type' : 'element type';
      report(walk, `${path}.elements: required for ${noun} "${containerType}"`);
    }
    return;
  }
  if (!Array.isArray(elements)) {
    report(walk, `${path}.elements: must be an array`);
    return;
  }
  checkArray(elements, `${path}.elements`, placement, depth + 1, walk);
}

function checkField(value: JsonRecord, path: string, type: string, noun: string, rule: FieldRule, walk: Walk): void {
  const field = value[rule.key];
  const fieldPath = `${path}.${rule.key}`;
  if (field === undefined) {
    if (rule.required) report(walk, `${fieldPath}: required for ${noun} "${type}"`);
    return;
  }
  if (!hasKind(field, rule.kind)) {
    report(walk, `${fieldPath}: ${KIND_MESSAGE[rule.kind]}`);
    return;
  }
  if (rule.oneOf !== undefined && !rule.oneOf.includes(String(field))) {
    const choices = rule.oneOf.map((choice) => `"${choice}"`).join(', ');
    report(walk, `${fieldPath}: must be one of ${choices}`);
    return;
  }
  if (rule.pattern !== undefined && !rule.pattern.regex.test(String(field))) {
    report(walk, `${fieldPath}: ${rule.pattern.message}`);
  }
}

function hasKind(field: unknown, kind: FieldKind): boolean {
  switch (kind) {
    case 'string':
      return typeof field === 'string';
    case 'id':
      return typeof field === 'string' && field !== '';
    case 'number':
      return typeof field === 'number' && Number.isFinite(field);
    case 'count':
      return typeof field === 'number' && Number.isInteger(field) && field >= 0;
    case 'boolean':
      return typeof field === 'boolean';
  }
}

function checkStyle(style: unknown, path: string, flags: readonly string[], walk: Walk): void {
  if (style === undefined) return;
  if (!isRecord(style)) {
    report(walk, `${path}: must be an object`);
    return;
  }
  for (const flag of flags) {
    const flagValue = style[flag];
    if (flagValue !== undefined && typeof flagValue !== 'boolean') {
      report(walk, `${path}.${flag}: must be a boolean`);
    }
  }
}
