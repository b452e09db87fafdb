// Paths named in comments and docs exist (issue 29).
//
// A comment or a page that sends the reader to a file that has moved (or never was) misleads
// every newcomer who follows it. Every repository path named in a comment of src/ or test/, in docs/*.md or in
// README.md exists: a path is `src/...`, `test/...`, `docs/...` or `bench/...` ending in a file
// name with an extension, or in `/` (a folder). Paths with a placeholder (`src/modules/<resource>/`)
// are checked up to the placeholder.
//
// ARCH_ROOT=<checkout> runs the rule over another checkout (test/architecture/source-tree.ts).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { filesUnder, repoPath, root } from './source-tree.js';

/** A repository path: a top folder, then segments, ending in a name with an extension or in `/`. */
const namedPath = /(?<![\w./@-])(?:src|test|docs|bench)\/(?:[\w-]+(?:\.[\w-]+)*\/)*(?:[\w-]+(?:\.[\w-]+)*\.[A-Za-z0-9]+|(?<=\/))(?![\w-])/g;

/** The paths a text names. */
export function pathsIn(text: string): string[] {
  return [...text.matchAll(namedPath)].map((match) => match[0]);
}

/** The comments of a TypeScript source, with the line each starts on (leading and trailing comments of every token). */
export function commentsOf(text: string): { line: number; text: string }[] {
  const file = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, true);
  const seen = new Map<number, { line: number; text: string }>();
  const add = (ranges: ts.CommentRange[] | undefined) => {
    for (const range of ranges ?? []) {
      if (!seen.has(range.pos)) {
        seen.set(range.pos, { line: file.getLineAndCharacterOfPosition(range.pos).line + 1, text: text.slice(range.pos, range.end) });
      }
    }
  };
  // Every token, punctuation included (a comment may sit before the `.` of a call chain).
  const visit = (node: ts.Node): void => {
    add(ts.getLeadingCommentRanges(text, node.pos));
    add(ts.getTrailingCommentRanges(text, node.end));
    for (const child of node.getChildren(file)) visit(child);
  };
  visit(file);
  return [...seen.entries()].sort(([a], [b]) => a - b).map(([, comment]) => comment);
}

/** Every named path that does not exist under `at`, as "where: path". */
export function missingPaths(at: string = root): string[] {
  const missing: string[] = [];
  const check = (file: string, line: number, text: string) => {
    for (const match of text.matchAll(namedPath)) {
      const lineOfPath = line + (text.slice(0, match.index).match(/\n/g)?.length ?? 0);
      if (!existsSync(join(at, match[0]))) missing.push(`${file}:${lineOfPath}: ${match[0]}`);
    }
  };
  for (const path of [...filesUnder(join(at, 'src')), ...filesUnder(join(at, 'test'))]) {
    for (const comment of commentsOf(readFileSync(path, 'utf8'))) check(repoPath(path), comment.line, comment.text);
  }
  const pages = [...filesUnder(join(at, 'docs'), ['.md']).filter((path) => !path.slice(join(at, 'docs').length + 1).includes('/'))];
  if (existsSync(join(at, 'README.md'))) pages.push(join(at, 'README.md'));
  for (const page of pages) {
    const lines = readFileSync(page, 'utf8').split('\n');
    for (const [index, line] of lines.entries()) check(repoPath(page), index + 1, line);
  }
  return missing;
}

describe('paths named in comments and docs exist (rule at the top of this file)', () => {
  it('holds for src, test, docs/*.md and README.md', () => {
    const missing = missingPaths();
    if (missing.length > 0) console.log(`${missing.length} named paths that do not exist:\n${missing.join('\n')}`);
    assert.deepEqual(missing, []);
  });

  it('takes files with an extension and folders, not prose, URLs or other roots', () => {
    assert.deepEqual(pathsIn('see src/app.ts, and src/write-path/.'), ['src/app.ts', 'src/write-path/']);
    assert.deepEqual(pathsIn('`src/modules/<resource>/<resource>.queries.ts` and test/**/*.test.ts'), ['src/modules/', 'test/']);
    assert.deepEqual(pathsIn('src/db and https://example.com/src/x.ts and clients/typescript/src/index.ts'), []);
    assert.deepEqual(pathsIn('(docs/webhooks.md) and bench/ab-builds.sh:12'), ['docs/webhooks.md', 'bench/ab-builds.sh']);
  });

  it('reads comments, not strings', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the text is a source under test, with a template inside
    const comments = commentsOf("// src/a.ts\nconst url = 'http://x/src/b.ts'; /* test/c.ts */\nconst t = `${1}//not`;\n");
    assert.deepEqual(
      comments.map((c) => c.line),
      [1, 2],
    );
  });
});
