// The source tree the architecture tests read. ARCH_ROOT points them at another checkout (for
// example a `git archive` of main's src in a temporary folder) to show what they find there.
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/** The repository root the tests read: ARCH_ROOT when set, else this checkout. */
export const root = process.env.ARCH_ROOT ?? join(import.meta.dirname, '..', '..');

/**
 * The folders of src/ that are no module: what several modules share, each with its purpose. A new
 * folder is added here with one line, or it is a module of src/modules. module-layout.test.ts holds
 * src/ to them; test-mirror.test.ts wants tests of each.
 */
export const sharedFolders: Readonly<Record<string, string>> = {
  http: 'the HTTP plumbing registered by buildApp: guards, auth, plan guard, idempotency, rate limit, OpenAPI; knows no resource',
  routing: 'what route handlers use: the principal of a request, JSON replies, command contexts',
  schemas: 'schema primitives and the JSON text envelopes of the API',
  db: 'opening the database, the table types, migrations, batches and the generic statement builders',
  shared: 'what every layer uses: clock, ids, time units, plans, permissions, failures, the types two layers exchange',
  caching: 'cachedRead, the response cache and the count cache',
  'write-path': 'writeCommunityData, the one way to change community data, and its outbox and activity steps',
  import: 'the import file: its sections in order, the run, and the fields every section parses',
  export: 'the export file: the sections in order and the key order; each section builds its rows in its module',
  cli: 'the community-admin command line: one <group>.cli.ts per command group, and the seed',
  chat: 'the ChatWorkspace port and its Slack adapter',
  'rich-text': 'pure functions over chat rich-text blocks',
  references: "stored mentions turned into the API's references, and the rows a page refers to",
  metrics: 'the Prometheus metrics and the scrape gauges',
  'wire-names': "the API's field names and their chat (Slack) spellings",
};

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

/** The string literals a type written in `file` allows: literal types, unions, and the file's own type aliases and type parameters' constraints. */
export function literalsOfType(type: ts.TypeNode | undefined, file: ts.SourceFile, at: ts.Node, depth = 0): string[] {
  if (!type || depth > 5) return [];
  if (ts.isLiteralTypeNode(type) && ts.isStringLiteral(type.literal)) return [type.literal.text];
  if (ts.isUnionTypeNode(type)) return type.types.flatMap((member) => literalsOfType(member, file, at, depth + 1));
  if (ts.isParenthesizedTypeNode(type)) return literalsOfType(type.type, file, at, depth + 1);
  if (ts.isTypeReferenceNode(type) && ts.isIdentifier(type.typeName)) {
    const name = type.typeName.text;
    for (let scope: ts.Node | undefined = at; scope; scope = scope.parent) {
      if (ts.isFunctionLike(scope)) {
        const parameter = scope.typeParameters?.find((p) => p.name.text === name);
        if (parameter) return literalsOfType(parameter.constraint, file, scope, depth + 1);
      }
    }
    for (const statement of file.statements) {
      if (ts.isTypeAliasDeclaration(statement) && statement.name.text === name)
        return literalsOfType(statement.type, file, statement, depth + 1);
    }
  }
  return [];
}

/**
 * The tables a statement's first argument names: a string (`'posts as p'`), or, for a table named by
 * a variable, what its declaration allows (a parameter's literal type, `x as T`, the elements of the
 * array a `for ... of` walks). A subquery or an unknown expression names none.
 */
export function tableNamesOf(argument: ts.Expression, file: ts.SourceFile): string[] {
  if (ts.isStringLiteralLike(argument)) return [argument.text];
  if (ts.isArrayLiteralExpression(argument)) return argument.elements.flatMap((element) => tableNamesOf(element, file));
  if (ts.isAsExpression(argument)) {
    const asType = literalsOfType(argument.type, file, argument);
    return asType.length > 0 ? asType : tableNamesOf(argument.expression, file);
  }
  if (ts.isParenthesizedExpression(argument)) return tableNamesOf(argument.expression, file);
  if (!ts.isIdentifier(argument)) return [];
  const name = argument.text;
  for (let scope: ts.Node | undefined = argument.parent; scope; scope = scope.parent) {
    if (ts.isFunctionLike(scope)) {
      const parameter = scope.parameters.find((p) => ts.isIdentifier(p.name) && p.name.text === name);
      if (parameter) return literalsOfType(parameter.type, file, scope);
    }
    if (ts.isForOfStatement(scope) && ts.isVariableDeclarationList(scope.initializer)) {
      const declared = scope.initializer.declarations.some((d) => ts.isIdentifier(d.name) && d.name.text === name);
      if (declared) {
        let walked: ts.Expression = scope.expression;
        while (ts.isAsExpression(walked) || ts.isParenthesizedExpression(walked)) walked = walked.expression;
        return ts.isArrayLiteralExpression(walked) ? walked.elements.flatMap((element) => tableNamesOf(element, file)) : [];
      }
    }
  }
  return [];
}
