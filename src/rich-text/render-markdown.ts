import { type DocumentNode, readDocument } from './document-model.js';
import type { RenderOptions } from './inline-runs.js';
import { safeHref } from './inline-runs.js';
import { encodeHref, escapeMarkdown, renderInlineMarkdown } from './markdown-inline.js';

type ListNode = Extract<DocumentNode, { kind: 'list' }>;

// Four spaces per level nest a list under the previous item whether its marker is "- " or
// "10. ", without turning the line into an indented code block.
const LIST_INDENT = '    ';

/** Renders rich text blocks as Markdown (CommonMark + GFM strikethrough); never throws. */
export function renderMarkdown(blocks: unknown, options: RenderOptions = {}): string {
  let out = '';
  let previous: { node: DocumentNode; indent: number } | undefined;
  for (const node of readDocument(blocks, options)) {
    const indent = node.kind === 'list' ? listIndent(node, previous) : 0;
    const rendered = renderNode(node, indent);
    if (rendered === '') continue;
    if (previous !== undefined) out += separator(previous, node, indent);
    out += rendered;
    previous = { node, indent };
  }
  return out;
}

function renderNode(node: DocumentNode, indent: number): string {
  switch (node.kind) {
    case 'paragraph':
      return renderInlineMarkdown(node.runs);
    case 'heading':
      // An ATX heading is one line: a line break in the header text becomes a space.
      return `# ${renderInlineMarkdown(node.runs.map((run) => ({ ...run, text: run.text.replace(/\n+/g, ' ') })))}`;
    case 'rule':
      return '---';
    case 'image':
      return imageMarkdown(node);
    case 'quote':
      return renderInlineMarkdown(node.runs)
        .split('\n')
        .map((line) => (line === '' ? '>' : `> ${line}`))
        .join('\n');
    case 'preformatted':
      return codeBlock(node.runs.map((run) => run.text).join(''));
    case 'list':
      return renderList(node, indent);
  }
}

// A list nests at most one level deeper than the list before it: deeper indentation with
// no parent item would read as an indented code block.
function listIndent(node: ListNode, previous: { node: DocumentNode; indent: number } | undefined): number {
  const ceiling = previous?.node.kind === 'list' ? previous.indent + 1 : 0;
  return Math.min(node.indent, ceiling);
}

// Lists that follow each other stay together; everything else is its own paragraph. An
// ordered list that starts at 2 or later cannot interrupt the item text above it, so a
// nested one gets a blank line first.
function separator(previous: { node: DocumentNode; indent: number }, node: DocumentNode, indent: number): string {
  if (previous.node.kind !== 'list' || node.kind !== 'list') return '\n\n';
  const nestedLateStart = indent > previous.indent && node.style === 'ordered' && node.start > 1;
  return nestedLateStart ? '\n\n' : '\n';
}

function renderList(node: ListNode, indent: number): string {
  const pad = LIST_INDENT.repeat(indent);
  return node.items
    .map((runs, index) => {
      const marker = node.style === 'ordered' ? `${node.start + index}. ` : '- ';
      const continuation = pad + ' '.repeat(marker.length);
      const lines = renderInlineMarkdown(runs).split('\n');
      return lines
        .map((line, lineIndex) => {
          if (lineIndex === 0) return line === '' ? (pad + marker).trimEnd() : pad + marker + line;
          return line === '' ? '' : continuation + line;
        })
        .join('\n');
    })
    .join('\n');
}

// Only URLs that could be links become images; an alt text or title is escaped like any text.
function imageMarkdown(node: Extract<DocumentNode, { kind: 'image' }>): string {
  const href = safeHref(node.url);
  if (href === undefined) return '';
  const title = node.title === '' ? '' : ` "${node.title.replace(/["\\]/g, '\\$&').replace(/\n/g, ' ')}"`;
  return `![${escapeMarkdown(node.alt.replace(/\n/g, ' '), false)}](${encodeHref(href)}${title})`;
}

function codeBlock(text: string): string {
  const longest = (text.match(/`{3,}/g) ?? []).reduce((max, run) => Math.max(max, run.length), 0);
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}\n${text}\n${fence}`;
}
