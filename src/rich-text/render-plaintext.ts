import { readDocument } from './document-model.js';
import type { RenderOptions, Run } from './inline-runs.js';

/** Renders rich text blocks as the plain text a reader sees; never throws. */
export function renderPlaintext(blocks: unknown, options: RenderOptions = {}): string {
  const lines: string[] = [];
  for (const node of readDocument(blocks, options)) {
    // A rule or an image is nothing a reader of the text sees.
    if (node.kind === 'rule' || node.kind === 'image') continue;
    if (node.kind !== 'list') {
      lines.push(runsText(node.runs));
      continue;
    }
    const pad = '  '.repeat(node.indent);
    node.items.forEach((runs, index) => {
      const marker = node.style === 'ordered' ? `${node.start + index}. ` : '- ';
      lines.push(prefixLines(runsText(runs), pad + marker, pad + ' '.repeat(marker.length)));
    });
  }
  return lines.join('\n');
}

function runsText(runs: readonly Run[]): string {
  return runs.map((run) => run.text).join('');
}

// Continuation lines of an item line up under its text, as a reader sees them wrap.
function prefixLines(text: string, first: string, rest: string): string {
  return text
    .split('\n')
    .map((line, index) => {
      if (index === 0) return line === '' ? first.trimEnd() : first + line;
      return line === '' ? '' : rest + line;
    })
    .join('\n');
}
