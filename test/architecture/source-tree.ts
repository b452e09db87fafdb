// The source tree the architecture tests read. ARCH_ROOT points them at another checkout (for
// example a `git archive` of main's src in a temporary folder) to show what they find there.
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/** The repository root the tests read: ARCH_ROOT when set, else this checkout. */
export const root = process.env.ARCH_ROOT ?? join(import.meta.dirname, '..', '..');

/** Every file under `dir` whose name ends with one of `endings`, as absolute paths, sorted. */
export function filesUnder(dir: string, endings: readonly string[] = ['.ts']): string[] {
  if (!existsSync(dir)) return [];
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...filesUnder(path, endings));
    else if (endings.some((ending) => entry.name.endsWith(ending))) found.push(path);
  }
  return found.sort();
}

/** A path as the repository names it (`src/app.ts`), whatever the platform. */
export const repoPath = (path: string): string => relative(root, path).split('\\').join('/');

/** The whole chain a call is part of (`db.updateTable(...).set(...).where(...)`). */
export function chainTop(node: ts.Node): ts.Node {
  let at = node;
  while (
    (ts.isPropertyAccessExpression(at.parent) && at.parent.expression === at) ||
    (ts.isCallExpression(at.parent) && at.parent.expression === at)
  ) {
    at = at.parent;
  }
  return at;
}
