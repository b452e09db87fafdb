import { type LayoutPart, layoutParts } from './block-kit.js';
import { fallbackText, inlineRuns, type RenderOptions, type Run, safeHref } from './inline-runs.js';
import { isRecord, MAX_NESTING_DEPTH, readElements } from './json-guards.js';

// The renderers share one reading of the blocks: malformed parts are dropped or reduced to
// their fallback text here, so each renderer only deals with well-formed nodes.

export type DocumentNode =
  | { readonly kind: 'paragraph'; readonly runs: readonly Run[] }
  | { readonly kind: 'heading'; readonly runs: readonly Run[] }
  | { readonly kind: 'rule' }
  | { readonly kind: 'image'; readonly url: string; readonly alt: string; readonly title: string }
  | { readonly kind: 'quote'; readonly runs: readonly Run[] }
  | { readonly kind: 'preformatted'; readonly runs: readonly Run[] }
  | {
      readonly kind: 'list';
      readonly style: 'bullet' | 'ordered';
      readonly indent: number;
      readonly start: number;
      readonly items: readonly (readonly Run[])[];
    };

/** Reads rich text blocks (any value) into paragraphs, quotes, code and lists of runs. */
export function readDocument(blocks: unknown, options: RenderOptions = {}): DocumentNode[] {
  if (!Array.isArray(blocks)) return [];
  const nodes: DocumentNode[] = [];
  for (const block of blocks) {
    if (!isRecord(block)) continue;
    const layout = layoutParts(block);
    if (layout !== undefined) {
      for (const part of layout) readLayoutPart(part, options, nodes);
      continue;
    }
    const elements = readElements(block);
    if (elements === undefined) {
      // Blocks of unknown kinds still show their text, when they have one.
      pushRunsNode(nodes, 'paragraph', inlineRunsOfText(fallbackText(block)));
      continue;
    }
    for (const element of elements) readBlockElement(element, options, nodes);
  }
  return nodes;
}

function readLayoutPart(part: LayoutPart, options: RenderOptions, nodes: DocumentNode[]): void {
  if (part.kind === 'rule' || part.kind === 'image') {
    // An image whose URL could not be a link (javascript:, data:, ...) is not shown at all.
    if (part.kind === 'rule' || safeHref(part.url) !== undefined) nodes.push(part);
    return;
  }
  pushRunsNode(nodes, part.kind, inlineRuns(part.section, options, 2));
}

function readBlockElement(element: unknown, options: RenderOptions, nodes: DocumentNode[]): void {
  const depth = 2;
  if (!isRecord(element)) return;
  switch (element.type) {
    case 'rich_text_list':
      readList(element, options, nodes, depth);
      return;
    case 'rich_text_quote':
      pushRunsNode(nodes, 'quote', inlineRuns(element, options, depth));
      return;
    case 'rich_text_preformatted':
      pushRunsNode(nodes, 'preformatted', inlineRuns(element, options, depth));
      return;
    default:
      // rich_text_section, and unknown elements reduced to their text.
      pushRunsNode(nodes, 'paragraph', inlineRuns(element, options, depth));
  }
}

function readList(list: Record<string, unknown>, options: RenderOptions, nodes: DocumentNode[], depth: number): void {
  const items = (readElements(list) ?? []).map((item) => normaliseRuns(inlineRuns(item, options, depth + 1)));
  if (items.length === 0) return;
  nodes.push({
    kind: 'list',
    style: list.style === 'ordered' ? 'ordered' : 'bullet',
    indent: readCount(list.indent, MAX_NESTING_DEPTH),
    start: readCount(list.offset, Number.MAX_SAFE_INTEGER - 1) + 1,
    items,
  });
}

function pushRunsNode(nodes: DocumentNode[], kind: 'paragraph' | 'heading' | 'quote' | 'preformatted', runs: readonly Run[]): void {
  const normalised = normaliseRuns(runs);
  // A section of only spaces is nothing a reader can see.
  if (normalised.some((run) => run.text.trim() !== '')) nodes.push({ kind, runs: normalised });
}

function inlineRunsOfText(text: string): Run[] {
  return text === '' ? [] : [{ text, marks: { bold: false, italic: false, strike: false, code: false } }];
}

function readCount(value: unknown, max: number): number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? Math.min(value, max) : 0;
}

// Slack ends a section with "\n" before a list or quote; readers see no blank line there.
// Adjacent runs with the same marks are merged so Markdown gets one `**...**`, not two.
function normaliseRuns(runs: readonly Run[]): Run[] {
  const merged: Run[] = [];
  for (const run of runs) {
    if (run.text === '') continue;
    const last = merged.at(-1);
    if (last !== undefined && sameFormatting(last, run)) {
      merged[merged.length - 1] = { ...last, text: last.text + run.text };
    } else {
      merged.push(run);
    }
  }
  while (merged.length > 0) {
    const last = merged[merged.length - 1] as Run;
    const text = last.text.replace(/\n+$/, '');
    if (text !== '') {
      merged[merged.length - 1] = { ...last, text };
      break;
    }
    merged.pop();
  }
  return merged;
}

function sameFormatting(a: Run, b: Run): boolean {
  return (
    a.href === b.href &&
    a.marks.bold === b.marks.bold &&
    a.marks.italic === b.marks.italic &&
    a.marks.strike === b.marks.strike &&
    a.marks.code === b.marks.code
  );
}
