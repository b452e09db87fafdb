// test/ mirrors src/ in both directions (issue 37; docs/development.md, "Tests").
//
//   - every folder of test/ is named after a folder of src/ (test/modules/<m>/ after src/modules/<m>/),
//     or is one of the kinds of tests listed in `testKinds`, with what it holds; below that level, a
//     folder is only a `support/` or `fixtures/` of the tests beside it;
//   - every module of src/modules and every shared folder of src/ (module-layout.test.ts) has at least
//     one test file under its mirror folder, or is listed in `testedElsewhere` with where its tests are.
//
// ARCH_ROOT=<checkout> runs the rule over another checkout (test/architecture/source-tree.ts).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { filesUnder, root, sharedFolders } from './source-tree.js';

/**
 * Folders of test/ that test no one folder of src/: kinds of tests across the whole server, and
 * what tests share. Every other folder of test/ is named after the folder of src/ it tests.
 */
export const testKinds: Readonly<Record<string, string>> = {
  architecture: 'the structure of src/ itself',
  support: 'fixtures and helpers the tests share',
  reliability: 'faults, soak and graceful stops of a running server',
  security: 'the fuzzer, keys and hostile input across every route',
  server: 'the server process: logs, start and stop',
  clients: 'the typed client of clients/typescript',
  console: "the operator's console of console/ in a real browser, and its screenshots",
};

/** The names a folder below a mirror folder may have: what the tests beside it share. */
const helperFolders: ReadonlySet<string> = new Set(['support', 'fixtures']);

/**
 * Modules and shared folders of src/ with no test file under their mirror folder, and where they are
 * tested instead: each is driven through a surface that another folder's tests own.
 */
export const testedElsewhere: Readonly<Record<string, string>> = {
  'modules/chat-connections': 'only the CLI connects a workspace: test/cli/chat-connect.test.ts',
  'modules/communities': 'only the CLI creates and lists communities: test/cli/cli.test.ts',
  routing: 'the request helpers of every route: each route test drives them through HTTP',
  schemas: 'the primitives of every schema: the OpenAPI and validation tests of each module (test/modules/api-keys/openapi-rules.test.ts)',
  import: "the import run: each section's tests with its module (test/modules/<m>/*-import.test.ts), the whole file in test/export/",
  references: "mentions resolved into references: test/modules/posts/channel-mentions.test.ts and the calendar events' tests",
};

const foldersOf = (dir: string): string[] =>
  existsSync(dir)
    ? readdirSync(dir, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => e.name)
    : [];

/** Folders of test/ (and test/modules/) that mirror nothing in src/, one line each. */
export function testMirrorViolations(at: string = root): string[] {
  const found: string[] = [];
  const below = (dir: string, shown: string): void => {
    for (const name of foldersOf(dir)) {
      if (!helperFolders.has(name)) found.push(`${shown}${name}/: below a mirror folder, only support/ or fixtures/`);
    }
  };
  for (const name of foldersOf(join(at, 'test'))) {
    if (name === 'support') continue;
    if (!(name in testKinds) && !existsSync(join(at, 'src', name))) found.push(`test/${name}/: no src/${name}/`);
    if (name !== 'modules') below(join(at, 'test', name), `test/${name}/`);
  }
  for (const name of foldersOf(join(at, 'test', 'modules'))) {
    if (!existsSync(join(at, 'src', 'modules', name))) found.push(`test/modules/${name}/: no src/modules/${name}/`);
    below(join(at, 'test', 'modules', name), `test/modules/${name}/`);
  }
  return found;
}

/** Modules and shared folders of src/ with no test under their mirror folder and no reason listed, one line each. */
export function untestedFolders(
  at: string = root,
  shared: readonly string[] = Object.keys(sharedFolders),
  elsewhere: Readonly<Record<string, string>> = testedElsewhere,
): string[] {
  const modules = foldersOf(join(at, 'src', 'modules')).map((name) => `modules/${name}`);
  return [...modules, ...shared]
    .filter((folder) => existsSync(join(at, 'src', folder)))
    .filter((folder) => !(folder in elsewhere) && filesUnder(join(at, 'test', folder), ['.test.ts']).length === 0)
    .map((folder) => `src/${folder}/: no test under test/${folder}/`);
}

describe('test/ mirrors src/ (rule at the top of this file)', () => {
  it('every folder of test/ is a folder of src/ or one of the listed kinds of tests', () => {
    assert.deepEqual(testMirrorViolations(), []);
  });

  it('every module and shared folder of src/ has tests under its mirror folder, or says where they are', () => {
    assert.deepEqual(untestedFolders(), []);
    assert.deepEqual(
      Object.keys(testedElsewhere).filter((folder) => filesUnder(join(root, 'test', folder), ['.test.ts']).length > 0),
      [],
      'listed as tested elsewhere, but it has tests of its own now: drop it from testedElsewhere',
    );
  });

  it('names a folder that mirrors nothing and a module without tests (a small tree)', () => {
    const at = mkdtempSync(join(tmpdir(), 'mirror-'));
    try {
      for (const dir of [
        'src/chat',
        'src/modules/posts',
        'src/modules/awards',
        'test/chat',
        'test/chat/deep',
        'test/unit',
        'test/support',
        'test/modules/posts/support',
        'test/modules/widgets',
      ])
        mkdirSync(join(at, dir), { recursive: true });
      writeFileSync(join(at, 'test/chat/a.test.ts'), '');
      assert.deepEqual(testMirrorViolations(at).sort(), [
        'test/chat/deep/: below a mirror folder, only support/ or fixtures/',
        'test/modules/widgets/: no src/modules/widgets/',
        'test/unit/: no src/unit/',
      ]);
      assert.deepEqual(untestedFolders(at, ['chat'], {}), [
        'src/modules/awards/: no test under test/modules/awards/',
        'src/modules/posts/: no test under test/modules/posts/',
      ]);
      assert.deepEqual(untestedFolders(at, ['chat'], { 'modules/awards': 'elsewhere', 'modules/posts': 'elsewhere' }), []);
    } finally {
      rmSync(at, { recursive: true, force: true });
    }
  });
});
