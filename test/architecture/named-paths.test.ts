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

/**
 * Code names a page or a comment sends the reader to: an identifier in backticks that reads as code
 * (`writeCommunityData`, `RouteRuleTable`: a lower-case start with a capital inside, or two capitalised
 * words run together) and a bare module file name (`files.reads.ts`). Names that are not ours (a
 * library's API, a port proposed in prose) are listed in `notOurs` with why.
 */
const codeName = /`([a-z][a-z0-9]*[A-Z][A-Za-z0-9]*|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*)`/g;
const bareFileName = /(?<![\w./-])([\w-]+(?:\.[\w-]+)+\.ts)\b/g;
const notOurs = new Set([
  'stringifySetCookie', // the cookie package's API (docs/dependencies.md)
  'arrayBuffers', // a field of process.memoryUsage() (docs/files.md)
  'FileStore', // the port docs/files.md proposes for object storage, not built
  'dangerouslySetInnerHTML', // Preact's (and React's) raw-HTML property, which the console never uses (docs/dependencies.md)
  'pcache1TruncateUnsafe', // a function of SQLite's page cache, seen in a profile (docs/activity.md)
  'walChecksumBytes', // SQLite's WAL checksum, seen in a profile (docs/activity.md)
  'sqlite3VdbeExec', // SQLite's statement interpreter, seen in a profile (docs/activity.md)
  'sqlite3BtreeIndexMoveto', // SQLite's index descent, seen in a profile (docs/activity.md)
  'pcache1Fetch', // SQLite's page cache lookup, seen in a profile (docs/activity.md)
  'monitorEventLoopDelay', // Node's perf_hooks histogram, used by hand to read the event loop's turns (docs/performance.md)
  'allowScripts', // npm's setting naming the packages whose install scripts run (package.json, docs/dependencies.md)
]);

/** Every code name of docs/*.md, README.md and src's comments that no source file of the project holds, as "where: name". */
export function missingCodeNames(at: string = root): string[] {
  const sources = ['src', 'test', 'bench', 'clients', 'console'].flatMap((dir) =>
    // This file names missing names on purpose (its own examples).
    filesUnder(join(at, dir), ['.ts', '.tsx']).filter(
      (path) => !/\/(node_modules|dist)\//.test(path) && !path.endsWith('named-paths.test.ts'),
    ),
  );
  const words = new Set<string>();
  for (const path of sources) for (const word of readFileSync(path, 'utf8').matchAll(/[A-Za-z_$][\w$]*/g)) words.add(word[0]);
  const fileNames = new Set(sources.map((path) => path.split('/').pop()));
  const missing: string[] = [];
  const check = (where: string, text: string) => {
    // The platform's own names (TextEncoder, PerformanceObserver) are there without a source of ours.
    for (const match of text.matchAll(codeName))
      if (!words.has(match[1]) && !notOurs.has(match[1]) && !(match[1] in globalThis)) missing.push(`${where}: ${match[1]}`);
    for (const match of text.matchAll(bareFileName)) if (!fileNames.has(match[1])) missing.push(`${where}: ${match[1]}`);
  };
  const pages = filesUnder(join(at, 'docs'), ['.md']).filter((path) => !path.slice(join(at, 'docs').length + 1).includes('/'));
  if (existsSync(join(at, 'README.md'))) pages.push(join(at, 'README.md'));
  for (const page of pages)
    for (const [index, line] of readFileSync(page, 'utf8').split('\n').entries()) check(`${repoPath(page)}:${index + 1}`, line);
  for (const path of filesUnder(join(at, 'src')))
    for (const comment of commentsOf(readFileSync(path, 'utf8'))) check(`${repoPath(path)}:${comment.line}`, comment.text);
  return missing;
}

describe('code names in comments and docs exist (rule above missingCodeNames)', () => {
  it('holds for src comments, docs/*.md and README.md', () => {
    const missing = missingCodeNames();
    if (missing.length > 0) console.log(`${missing.length} named names that no source holds:\n${missing.join('\n')}`);
    assert.deepEqual(missing, []);
  });

  it('takes code-like names in backticks and bare module file names, not prose', () => {
    const names = (text: string) => [...text.matchAll(codeName)].map((m) => m[1]).concat([...text.matchAll(bareFileName)].map((m) => m[1]));
    assert.deepEqual(names('`PlanTable` and `planRequirements`, see files.upload.ts'), [
      'PlanTable',
      'planRequirements',
      'files.upload.ts',
    ]);
    assert.deepEqual(names('`Retry-After`, `WIRE_NAMES`, `all`, `Refused`, src/app.ts and Mr. Smith'), []);
  });
});

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
