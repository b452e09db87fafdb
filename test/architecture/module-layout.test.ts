// A module layout a newcomer can predict (issue 29; docs/development.md, "Layout").
//
// Every file of a resource module src/modules/<resource>/ is named `<resource>.<role>.ts`, or
// `<role>/<topic>.ts` when one role is too long for one file, with the role from one closed list.
// The module's name is its folder's. Knowing one module, one knows where everything is in all.
//
// ARCH_ROOT=<checkout> runs the rule over another checkout's src (test/architecture/source-tree.ts).
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
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
