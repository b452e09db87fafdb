import { type DocumentNode, readDocument } from './document-model.js';
import { type RenderOptions, type Run, safeHref } from './inline-runs.js';

export interface ProseMirrorMark {
  readonly type: 'link' | 'bold' | 'italic' | 'strike' | 'code';
  readonly attrs?: { readonly href: string };
}

export interface ProseMirrorNode {
  readonly type: string;
  readonly attrs?: Readonly<Record<string, unknown>>;
  readonly content?: ProseMirrorNode[];
  readonly text?: string;
  readonly marks?: readonly ProseMirrorMark[];
}

export interface ProseMirrorDoc {
  readonly type: 'doc';
  readonly content: ProseMirrorNode[];
}

type ListNode = Extract<DocumentNode, { kind: 'list' }>;

interface OpenList {
  readonly indent: number;
  readonly style: ListNode['style'];
  readonly node: { type: string; attrs?: Record<string, unknown>; content: ProseMirrorNode[] };
}

/** Renders rich text blocks as a ProseMirror document (JSON); never throws. */
export function renderProseMirror(blocks: unknown, options: RenderOptions = {}): ProseMirrorDoc {
  const content: ProseMirrorNode[] = [];
  // Slack writes a nested list as a separate list with a larger `indent`; ProseMirror nests
  // it inside the last item of the enclosing list. `open` holds the lists still extendable.
  let open: OpenList[] = [];
  for (const node of readDocument(blocks, options)) {
    if (node.kind !== 'list') {
      open = [];
      content.push(blockNode(node));
      continue;
    }
    while (open.length > 0 && (open.at(-1) as OpenList).indent > node.indent) open.pop();
    const top = open.at(-1);
    if (top !== undefined && top.indent === node.indent && top.style === node.style) {
      top.node.content.push(...node.items.map(listItem));
      continue;
    }
    if (top !== undefined && top.indent === node.indent) open.pop();
    const list = listNode(node);
    const parentItem = open.at(-1)?.node.content.at(-1);
    if (parentItem?.content !== undefined) parentItem.content.push(list);
    else content.push(list);
    open.push({ indent: node.indent, style: node.style, node: list });
  }
  return { type: 'doc', content };
}

function blockNode(node: Exclude<DocumentNode, ListNode>): ProseMirrorNode {
  switch (node.kind) {
    case 'paragraph':
      return paragraph(node.runs);
    case 'heading':
      return { ...paragraph(node.runs), type: 'heading', attrs: { level: 1 } };
    case 'rule':
      return { type: 'horizontal_rule' };
    case 'image': {
      // An image is an inline node in ProseMirror's basic schema: it sits in a paragraph of its own.
      const src = safeHref(node.url);
      if (src === undefined) return { type: 'paragraph' };
      const attrs = { src, alt: node.alt === '' ? null : node.alt, title: node.title === '' ? null : node.title };
      return { type: 'paragraph', content: [{ type: 'image', attrs }] };
    }
    case 'quote':
      return { type: 'blockquote', content: [paragraph(node.runs)] };
    case 'preformatted': {
      const text = node.runs.map((run) => run.text).join('');
      return { type: 'code_block', content: [{ type: 'text', text }] };
    }
  }
}

function listNode(node: ListNode): OpenList['node'] {
  const items = node.items.map(listItem);
  return node.style === 'ordered'
    ? { type: 'ordered_list', attrs: { order: node.start }, content: items }
    : { type: 'bullet_list', content: items };
}

function listItem(runs: readonly Run[]): ProseMirrorNode {
  return { type: 'list_item', content: [paragraph(runs)] };
}

// ProseMirror rejects empty text nodes, so an empty paragraph has no content at all.
function paragraph(runs: readonly Run[]): ProseMirrorNode {
  const inline = runs.flatMap(inlineNodes);
  return inline.length === 0 ? { type: 'paragraph' } : { type: 'paragraph', content: inline };
}

function inlineNodes(run: Run): ProseMirrorNode[] {
  const marks = marksOf(run);
  const nodes: ProseMirrorNode[] = [];
  run.text.split('\n').forEach((piece, index) => {
    if (index > 0) nodes.push({ type: 'hard_break' });
    if (piece === '') return;
    nodes.push(marks.length === 0 ? { type: 'text', text: piece } : { type: 'text', text: piece, marks: [...marks] });
  });
  return nodes;
}

function marksOf(run: Run): ProseMirrorMark[] {
  const marks: ProseMirrorMark[] = [];
  if (run.href !== undefined) marks.push({ type: 'link', attrs: { href: run.href } });
  if (run.marks.bold) marks.push({ type: 'bold' });
  if (run.marks.italic) marks.push({ type: 'italic' });
  if (run.marks.strike) marks.push({ type: 'strike' });
  if (run.marks.code) marks.push({ type: 'code' });
  return marks;
}
