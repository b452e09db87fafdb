// The import graph of src, read with the TypeScript parser (static and dynamic imports, re-exports).
import { dirname, resolve } from 'node:path';
import ts from 'typescript';
import { repoPath } from './source-tree.js';

/** The src files a file imports (static and dynamic imports, and re-exports), as repository paths. */
export function importsOf(path: string, text: string): string[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const specifiers: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      specifiers.push(node.moduleSpecifier.text);
    }
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      if (argument && ts.isStringLiteralLike(argument)) specifiers.push(argument.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return specifiers
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => repoPath(resolve(dirname(path), specifier.replace(/\.js$/, '.ts'))));
}

/** The import graph of a set of files: repository path -> the paths it imports. */
export function graphOf(files: ReadonlyMap<string, string>): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const [path, text] of files) graph.set(repoPath(path), importsOf(path, text));
  return graph;
}
