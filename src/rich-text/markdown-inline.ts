import type { Run } from './inline-runs.js';

// Inline Markdown (CommonMark + GFM strikethrough). Marks nest in one fixed order, link
// outermost and code innermost, and stay open across runs that share them, so "bold, then
// bold italic" becomes `**a _b_**` rather than the unparseable `**a****_b_**`.

type MarkKey = 'link' | 'bold' | 'italic' | 'strike' | 'code';

interface OpenMark {
  readonly key: MarkKey;
  readonly href?: string;
}

const DELIMITERS: Readonly<Record<'bold' | 'italic' | 'strike', string>> = {
  bold: '**',
  italic: '_',
  strike: '~~',
};

/** Renders runs as inline Markdown: "\n" is a hard break, a blank line starts a paragraph. */
export function renderInlineMarkdown(runs: readonly Run[]): string {
  const paragraphs: string[][] = [[]];
  for (const line of splitLines(runs)) {
    const rendered = renderLine(line);
    const current = paragraphs[paragraphs.length - 1] as string[];
    if (rendered !== '') current.push(rendered);
    else if (current.length > 0) paragraphs.push([]);
  }
  return paragraphs
    .filter((lines) => lines.length > 0)
    .map((lines) => lines.join('\\\n'))
    .join('\n\n');
}

/** Escapes text so Markdown shows it literally; `atLineStart` adds block-syntax escapes. */
export function escapeMarkdown(text: string, atLineStart: boolean): string {
  let escaped = text.replace(/[\\`*_~[\]<|]/g, '\\$&').replace(/&(?=#?[0-9a-z]+;)/gi, '\\&');
  if (atLineStart) {
    // Headings, quotes, list markers and setext underlines only count at the start of a line.
    escaped = escaped.replace(/^[#>+=-]/, '\\$&').replace(/^(\d{1,9})([.)])/, '$1\\$2');
  }
  return escaped;
}

function splitLines(runs: readonly Run[]): Run[][] {
  const lines: Run[][] = [[]];
  for (const run of runs) {
    run.text.split('\n').forEach((piece, index) => {
      if (index > 0) lines.push([]);
      if (piece !== '') (lines[lines.length - 1] as Run[]).push({ ...run, text: piece });
    });
  }
  return lines;
}

function renderLine(runs: readonly Run[]): string {
  const writer = new LineWriter();
  for (const run of runs) writer.write(run);
  return writer.finish();
}

class LineWriter {
  private out = '';
  private readonly open: OpenMark[] = [];
  private code = '';
  // Whitespace is held back until we know whether marks close or open next: emphasis
  // delimiters must touch non-space text (`**a** b`, not `**a **b`).
  private pendingSpace = '';

  write(run: Run): void {
    const core = run.text.trim();
    const lead = run.text.slice(0, run.text.length - run.text.trimStart().length);
    const trail = run.text.slice(run.text.trimEnd().length);
    if (core === '') {
      this.pendingSpace += run.text;
      return;
    }
    const wanted = wantedMarks(run);
    let keep = 0;
    while (keep < this.open.length && keep < wanted.length) {
      if (!sameMark(this.open[keep] as OpenMark, wanted[keep] as OpenMark)) break;
      keep++;
    }
    this.closeDownTo(keep);
    this.flushSpace();
    let text = lead + core;
    if (wanted.length > keep) {
      this.pendingSpace = lead;
      this.flushSpace();
      text = core;
      for (const mark of wanted.slice(keep)) this.openMark(mark);
    }
    this.writeText(text);
    this.pendingSpace = trail;
  }

  finish(): string {
    this.closeDownTo(0);
    return this.out;
  }

  private flushSpace(): void {
    const space = this.pendingSpace;
    this.pendingSpace = '';
    if (this.isCodeOpen()) this.code += space;
    else if (this.out !== '') this.out += space;
  }

  private writeText(text: string): void {
    if (this.isCodeOpen()) {
      this.code += text;
      return;
    }
    const atLineStart = this.out === '';
    this.out += escapeMarkdown(atLineStart ? text.trimStart() : text, atLineStart);
  }

  private isCodeOpen(): boolean {
    return this.open.at(-1)?.key === 'code';
  }

  private openMark(mark: OpenMark): void {
    this.open.push(mark);
    if (mark.key === 'link') this.out += '[';
    else if (mark.key !== 'code') this.out += DELIMITERS[mark.key];
  }

  private closeDownTo(depth: number): void {
    while (this.open.length > depth) {
      const mark = this.open.pop() as OpenMark;
      if (mark.key === 'code') {
        this.out += codeSpan(this.code);
        this.code = '';
      } else if (mark.key === 'link') {
        this.out += `](${encodeHref(mark.href ?? '')})`;
      } else {
        this.out += DELIMITERS[mark.key];
      }
    }
  }
}

function wantedMarks(run: Run): OpenMark[] {
  const marks: OpenMark[] = [];
  if (run.href !== undefined) marks.push({ key: 'link', href: run.href });
  if (run.marks.bold) marks.push({ key: 'bold' });
  if (run.marks.italic) marks.push({ key: 'italic' });
  if (run.marks.strike) marks.push({ key: 'strike' });
  if (run.marks.code) marks.push({ key: 'code' });
  return marks;
}

function sameMark(a: OpenMark, b: OpenMark): boolean {
  return a.key === b.key && a.href === b.href;
}

// A code span's fence must be longer than any backtick run inside it.
function codeSpan(content: string): string {
  const longest = (content.match(/`+/g) ?? []).reduce((max, ticks) => Math.max(max, ticks.length), 0);
  const fence = '`'.repeat(longest + 1);
  const needsPad =
    content.startsWith('`') || content.endsWith('`') || (content.startsWith(' ') && content.endsWith(' ') && content.trim() !== '');
  const pad = needsPad ? ' ' : '';
  return `${fence}${pad}${content}${pad}${fence}`;
}

// Link destinations end at whitespace or an unbalanced parenthesis; percent-encode those.
export function encodeHref(href: string): string {
  return href.replace(/[\s()<>\\`]/g, (char) => {
    const code = char.charCodeAt(0);
    return code < 0x80 ? `%${code.toString(16).toUpperCase().padStart(2, '0')}` : encodeURIComponent(char);
  });
}
