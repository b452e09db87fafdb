// A layout a newcomer can predict (issues 29 and 37; docs/development.md, "Layout").
//
// Every file of a resource module src/modules/<resource>/ is named `<resource>.<role>.ts`, or
// `<role>/<topic>.ts` when one role is too long for one file (never both for one role), with the
// role from one closed list. The module's name is its folder's. Knowing one module, one knows where
// everything is in all. Every other file of src/ is in a named shared folder (`sharedFolders`, one
// line of purpose each) or is one of the named top files (`topFiles`): a file outside all three
// fails with a line saying so.
//
// ARCH_ROOT=<checkout> runs the rule over another checkout's src (test/architecture/source-tree.ts).
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { filesUnder, repoPath, root, sharedFolders } from './source-tree.js';

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

/** The files directly in src/, each with its purpose. */
export const topFiles: Readonly<Record<string, string>> = {
  'app.ts': 'builds the Fastify app and wires the interfaces src/http declares',
  'main.ts': 'runs the server',
  'config.ts': 'the configuration from the environment',
  'dependencies.ts': 'what route modules are given (AppServices, ModuleOptions)',
  'errors.ts': "the API's error envelope and its constructors",
};

/** The files directly in src/modules/, beside the module folders. */
export const moduleListFiles: Readonly<Record<string, string>> = {
  'routes.ts': "the list of the modules' routes plugins",
  'plan-requirements.ts': 'the plan and permission table of the routes',
};

/** Every module whose role is both one file and a folder (`<m>.queries.ts` beside `queries/`). */
function splitRoleViolations(resource: string, rests: readonly string[]): string[] {
  const asFile = new Set(rests.flatMap((rest) => /^[^/]+\.([a-z-]+)\.ts$/.exec(rest)?.[1] ?? []));
  const asFolder = new Set(rests.flatMap((rest) => (rest.includes('/') ? [rest.slice(0, rest.indexOf('/'))] : [])));
  return [...asFile]
    .filter((role) => asFolder.has(role))
    .map((role) => `src/modules/${resource}/: role "${role}" is both ${resource}.${role}.ts and ${role}/`);
}

/** Every file of every resource module that breaks the layout, one line each. */
export function layoutViolations(at: string = root): string[] {
  const modules = join(at, 'src', 'modules');
  if (!existsSync(modules)) return [];
  const found: string[] = [];
  for (const entry of readdirSync(modules, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const dir = join(modules, entry.name);
    const rests: string[] = [];
    for (const path of filesUnder(dir, [''])) {
      const rest = path
        .slice(dir.length + 1)
        .split('\\')
        .join('/');
      rests.push(rest);
      const why = layoutViolation(entry.name, rest);
      if (why) found.push(`${repoPath(path)}: ${why}`);
    }
    found.push(...splitRoleViolations(entry.name, rests));
  }
  return found;
}

/** Why a path of src/ (relative to src/) is out of place, or undefined: a module's files are held to the layout above. */
export function placeViolation(rest: string): string | undefined {
  const [first = '', second] = rest.split('/');
  if (second === undefined) return first in topFiles ? undefined : 'a loose file of src/: not one of the named top files (topFiles)';
  if (first === 'modules') {
    if (rest.split('/').length === 2 && !(second in moduleListFiles))
      return 'a loose file of src/modules/: not in a module folder, nor one of moduleListFiles';
    return undefined;
  }
  if (first in sharedFolders) return undefined;
  return `src/${first}/ is neither a module of src/modules nor a named shared folder (sharedFolders)`;
}

/** Every file of src/ outside the modules, the named shared folders and the named top files, one line each. */
export function placeViolations(at: string = root): string[] {
  const src = join(at, 'src');
  return filesUnder(src, ['']).flatMap((path) => {
    const rest = path
      .slice(src.length + 1)
      .split('\\')
      .join('/');
    const why = placeViolation(rest);
    return why ? [`src/${rest}: ${why}`] : [];
  });
}

describe(`every module file has a role of the closed list (${moduleRoles.join(', ')})`, () => {
  it('holds for every module of src/modules', () => {
    const violations = layoutViolations();
    if (violations.length > 0) console.log(`${violations.length} module files out of the layout:\n${violations.join('\n')}`);
    assert.deepEqual(violations, []);
  });

  it('holds for every file of src: a module, a named shared folder or a named top file', () => {
    const violations = placeViolations();
    if (violations.length > 0) console.log(`${violations.length} files of src out of place:\n${violations.join('\n')}`);
    assert.deepEqual(violations, []);
  });

  it('lists only shared folders and top files that exist', () => {
    const src = join(root, 'src');
    const present = readdirSync(src, { withFileTypes: true });
    assert.deepEqual(
      Object.keys(sharedFolders).filter((name) => !existsSync(join(src, name))),
      [],
      'shared folders listed that do not exist',
    );
    assert.deepEqual(
      Object.keys(topFiles).filter((name) => !present.some((e) => e.isFile() && e.name === name)),
      [],
      'top files listed that do not exist',
    );
  });

  it('refuses a loose file, an unnamed folder, and a loose file of src/modules', () => {
    assert.equal(placeViolation('app.ts'), undefined);
    assert.equal(placeViolation('http/auth.ts'), undefined);
    assert.equal(placeViolation('modules/routes.ts'), undefined);
    assert.equal(placeViolation('modules/posts/posts.reads.ts'), undefined);
    assert.match(placeViolation('helpers.ts') ?? '', /loose file of src\//);
    assert.match(placeViolation('webhooks/fan-out.ts') ?? '', /src\/webhooks\/ is neither a module/);
    assert.match(placeViolation('modules/fan-out.ts') ?? '', /loose file of src\/modules/);
  });

  it('refuses a role that is both one file and a folder', () => {
    assert.deepEqual(splitRoleViolations('webhooks', ['webhooks.queries.ts', 'queries/outbox.ts', 'routes/endpoints.ts']), [
      'src/modules/webhooks/: role "queries" is both webhooks.queries.ts and queries/',
    ]);
    assert.deepEqual(splitRoleViolations('webhooks', ['webhooks.schemas.ts', 'queries/outbox.ts']), []);
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
