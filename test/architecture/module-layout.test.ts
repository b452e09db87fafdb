// A module layout a newcomer can predict (issue 29; docs/development.md, "Layout").
//
// Every file of a resource module src/modules/<resource>/ is named `<resource>.<role>.ts`, or
// `<role>/<topic>.ts` when one role is too long for one file, with the role from one closed list.
// The module's name is its folder's. Knowing one module, one knows where everything is in all.
//
// ARCH_ROOT=<checkout> runs the rule over another checkout's src (test/architecture/source-tree.ts).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { filesUnder, repoPath, root } from './source-tree.js';

/** The closed list of file roles (what each holds: docs/development.md). */
export const moduleRoles = ['routes', 'schemas', 'commands', 'rules', 'reads', 'queries', 'records', 'import', 'export', 'worker'] as const;

const roles: ReadonlySet<string> = new Set(moduleRoles);

/** Why a module file's path (relative to src/modules/<resource>/) breaks the layout, or undefined when it keeps it. */
export function layoutViolation(resource: string, rest: string): string | undefined {
  const parts = rest.split('/');
  if (parts.length === 1) {
    const match = /^(.+)\.([a-z-]+)\.ts$/.exec(rest);
    if (!match || match[1] !== resource) return `not named ${resource}.<role>.ts`;
    if (!roles.has(match[2] ?? '')) return `role "${match[2]}" is not in the closed list`;
    return undefined;
  }
  if (parts.length === 2) {
    const [folder = '', topic = ''] = parts;
    if (!roles.has(folder)) return `folder "${folder}/" is not a role of the closed list`;
    if (!/^[a-z0-9]+(?:-[a-z0-9]+)*\.ts$/.test(topic)) return `not named ${folder}/<topic>.ts (kebab-case)`;
    return undefined;
  }
  return 'nested deeper than <role>/<topic>.ts';
}

/** Every file of every resource module that breaks the layout, one line each. */
export function layoutViolations(at: string = root): string[] {
  const modules = join(at, 'src', 'modules');
  if (!existsSync(modules)) return [];
  const found: string[] = [];
  for (const entry of readdirSync(modules, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const dir = join(modules, entry.name);
    for (const path of filesUnder(dir, [''])) {
      const rest = path
        .slice(dir.length + 1)
        .split('\\')
        .join('/');
      const why = layoutViolation(entry.name, rest);
      if (why) found.push(`${repoPath(path)}: ${why}`);
    }
  }
  return found;
}

describe(`every module file has a role of the closed list (${moduleRoles.join(', ')})`, () => {
  it('holds for every module of src/modules', () => {
    const violations = layoutViolations();
    if (violations.length > 0) console.log(`${violations.length} module files out of the layout:\n${violations.join('\n')}`);
    assert.deepEqual(violations, []);
  });

  it('accepts <resource>.<role>.ts and <role>/<topic>.ts', () => {
    assert.equal(layoutViolation('calendar-events', 'calendar-events.commands.ts'), undefined);
    assert.equal(layoutViolation('api-keys', 'api-keys.reads.ts'), undefined);
    assert.equal(layoutViolation('calendar-events', 'queries/attendees.ts'), undefined);
  });

  it('refuses another resource name, a role out of the list, a loose file, and deeper folders', () => {
    assert.ok(layoutViolation('members', 'chat-invitations.queries.ts'));
    assert.ok(layoutViolation('calendar-events', 'calendar-events.write-routes.ts'));
    assert.ok(layoutViolation('awards', 'notification-worker.ts'));
    assert.ok(layoutViolation('files', 'helpers/mime.ts'));
    assert.ok(layoutViolation('files', 'queries/a/b.ts'));
    assert.ok(layoutViolation('files', 'queries/Chunks.ts'));
  });
});

/**
 * Folders of test/ that test no one folder of src/: kinds of tests across the whole server, and
 * what tests share. Every other folder of test/ is named after the folder of src/ it tests.
 */
export const testKinds: Readonly<Record<string, string>> = {
  architecture: 'the structure of src/ itself',
  support: 'fixtures and helpers the tests share',
  http: 'whole-server HTTP behaviour owned by no one module (server processes, instances, idempotency)',
  reliability: 'faults, soak and graceful stops of a running server',
  security: 'the fuzzer, keys and hostile input across every route',
  server: 'the server process: logs, start and stop',
  clients: 'the typed client of clients/typescript',
  console: "the operator's console of console/ in a real browser, and its screenshots",
};

/** Folders of test/ (and test/modules/) that mirror nothing in src/, one line each. */
export function testMirrorViolations(at: string = root): string[] {
  const found: string[] = [];
  const folders = (dir: string) =>
    existsSync(dir)
      ? readdirSync(dir, { withFileTypes: true })
          .filter((e) => e.isDirectory())
          .map((e) => e.name)
      : [];
  for (const name of folders(join(at, 'test'))) {
    if (!(name in testKinds) && !existsSync(join(at, 'src', name))) found.push(`test/${name}/: no src/${name}/`);
  }
  for (const name of folders(join(at, 'test', 'modules'))) {
    if (!existsSync(join(at, 'src', 'modules', name))) found.push(`test/modules/${name}/: no src/modules/${name}/`);
  }
  return found;
}

describe('test/ mirrors src/', () => {
  it('every folder of test/ is a folder of src/ or one of the listed kinds of tests', () => {
    assert.deepEqual(testMirrorViolations(), []);
  });

  it('names a folder that mirrors nothing (a tree with test/unit/ and test/modules/widgets/)', () => {
    const at = mkdtempSync(join(tmpdir(), 'mirror-'));
    try {
      for (const dir of [
        'src/chat',
        'src/modules/posts',
        'test/chat',
        'test/unit',
        'test/support',
        'test/modules/posts',
        'test/modules/widgets',
      ])
        mkdirSync(join(at, dir), { recursive: true });
      assert.deepEqual(testMirrorViolations(at).sort(), ['test/modules/widgets/: no src/modules/widgets/', 'test/unit/: no src/unit/']);
    } finally {
      rmSync(at, { recursive: true, force: true });
    }
  });
});
