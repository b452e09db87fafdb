// Every runtime export of src is used by another file of src, or justified (issue 37).
//
// The rule: an exported value (function, const, let, class, enum, default export) of a file of src
// (migrations aside: the migrator loads them by name) is imported by another file of src, or it is
// listed in `justifiedExports` with its reason. Exported types and interfaces are allowed as a rule:
// they cost nothing at run time, and a caller must be able to name what an exported function takes
// and returns. A value imported only by test/, bench/ or the client's scripts is "test-only": it
// stays exported only with a reason here (or it becomes module-private and the test goes through the
// public surface). A value nothing imports is dead, and the test fails until it is made private or
// deleted.
//
// Imports are read with the TypeScript parser: named, default and namespace imports, re-exports
// (`export { x } from`, `export * from`) and dynamic imports (a destructured `await import(...)`
// names what it takes; any other takes everything). A file using its own export does not count.
//
// ARCH_ROOT=<checkout> runs the rule over another checkout's src (test/architecture/source-tree.ts).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { filesUnder, repoPath, root } from './source-tree.js';

const seed = 'the benches build their datasets from the seed, section by section';
const explain = 'the query-plan tests EXPLAIN exactly the statement it runs';
const follows = 'the tests follow the constant, not a copy of it';
const drives = 'the tests drive the rule directly';
const benchDb = 'the benches and the test harness open databases as the server does';

/**
 * `path#name` → why a runtime export that no other file of src imports stays exported: an entry
 * point, or a test-only export (imported only by test/, bench/ or the client's scripts).
 */
export const justifiedExports: Readonly<Record<string, string>> = {
  'src/cli/index.ts#runCli': "the bin's entry point (bin/community-admin.js runs the built CLI)",
  'src/chat/index.ts#ChatNotConfiguredError': "the chat port's surface: the tests tell the chat-less refusal by its class",
  'src/chat/index.ts#noChatWorkspace': "the chat port's surface: the tests drive the chat-less workspace",
  'src/chat/index.ts#createSlackWorkspace':
    "the chat port's surface: the tests build the Slack adapter against the fake Slack (the server goes through createSlackWorkspaceFactory)",
  'src/rich-text/index.ts#buildReferences': "the rich-text module's surface the tests read (src imports the file itself)",
  'src/cli/seed/run-seed.ts#seedSizes': "the spliced-records test starts from the seed's small size",
  'src/cli/seed/run-seed.ts#seedSections': seed,
  'src/cli/seed/run-seed.ts#totalOf': seed,
  'src/cli/seed/run-seed.ts#seedRange': seed,
  'src/config.ts#parseDatabaseUrl': benchDb,
  'src/db/database.ts#ensurePostgresSchema': benchDb,
  'src/db/prepared-query.ts#deepPageRows': 'the deep-pages test seeds past the depth where PostgreSQL reads ids first',
  'src/http/idempotency.ts#parseIdempotencyKey': drives,
  'src/http/idempotency.ts#requestFingerprint': drives,
  'src/http/rate-limit-address.ts#addressBucket': drives,
  'src/modules/activities/activities.records.ts#canonicalJson': 'the tests pin the canonical text the chain hashes',
  'src/modules/awards/awards.worker.ts#notificationRetryDelay': 'the tests advance the clock by the retry schedule',
  'src/modules/calendar-events/queries/events.ts#takenSlugsQuery': explain,
  'src/modules/calendar-events/queries/list.ts#calendarEventsPageQuery': explain,
  'src/modules/calendar-events/queries/list.ts#calendarEventsCountQuery': explain,
  'src/modules/chat-sync/rules/signature.ts#slackSignature': "the fake Slack's kit and the chat bench sign events as Slack does",
  'src/modules/search/search.commands.ts#rebuildSearchIndex': "the search bench rebuilds a community's index inside its own write",
  'src/modules/webhooks/commands/deliveries.ts#redeliverFailedCap': follows,
  'src/modules/webhooks/rules/retry-schedule.ts#retryDelaysMs': follows,
  'src/modules/webhooks/rules/retry-schedule.ts#maxAttempts': follows,
  'src/modules/webhooks/rules/signing.ts#signWebhook': "the tests check a delivery's signature as a receiver would",
  'src/modules/webhooks/rules/target-address.ts#isNonPublicAddress': drives,
  'src/shared/permissions.ts#everyPermission': 'the tests and the fuzzer enumerate every permission',
  'src/shared/timestamps.ts#minInstant': 'the tests hold parsing to the ends of the accepted range',
  'src/shared/timestamps.ts#maxInstant': 'the tests hold parsing to the ends of the accepted range',
};

/** One exported name of a file, and whether it exists at run time. */
interface Exported {
  readonly name: string;
  readonly value: boolean;
}

const parsed = new Map<string, ts.SourceFile>();

/** A file's syntax tree, parsed once per text (the rule reads src twice). */
function parse(path: string, text: string): ts.SourceFile {
  const key = `${path}\n${text.length}`;
  const known = parsed.get(key);
  if (known?.text === text) return known;
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  parsed.set(key, file);
  return file;
}

const hasModifier = (node: ts.Node, kind: ts.SyntaxKind): boolean =>
  ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === kind);

function bindingNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((element) => (ts.isOmittedExpression(element) ? [] : bindingNames(element.name)));
}

/** The names a file exports, each marked value or type. */
export function exportsOf(path: string, text: string): Exported[] {
  const file = parse(path, text);
  const localTypes = new Set<string>();
  for (const statement of file.statements) {
    if (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) localTypes.add(statement.name.text);
  }
  const found: Exported[] = [];
  for (const statement of file.statements) {
    if (ts.isExportAssignment(statement)) found.push({ name: 'default', value: true });
    if (ts.isExportDeclaration(statement)) {
      const clause = statement.exportClause;
      if (!clause || !ts.isNamedExports(clause)) continue; // `export * from`: the names stay the other file's
      for (const element of clause.elements) {
        const local = (element.propertyName ?? element.name).text;
        const typeOnly = statement.isTypeOnly || element.isTypeOnly || (!statement.moduleSpecifier && localTypes.has(local));
        found.push({ name: element.name.text, value: !typeOnly });
      }
      continue;
    }
    if (!hasModifier(statement, ts.SyntaxKind.ExportKeyword) || hasModifier(statement, ts.SyntaxKind.DeclareKeyword)) continue;
    const isDefault = hasModifier(statement, ts.SyntaxKind.DefaultKeyword);
    if (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) {
      found.push({ name: statement.name.text, value: false });
    } else if (ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement) || ts.isEnumDeclaration(statement)) {
      found.push({ name: isDefault ? 'default' : (statement.name?.text ?? 'default'), value: true });
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations)
        for (const name of bindingNames(declaration.name)) found.push({ name, value: true });
    }
  }
  return found;
}

/** What a file takes from others: `target#name`, or `target#*` for all of a file's exports. */
export function usesOf(path: string, text: string): string[] {
  const file = parse(path, text);
  const uses: string[] = [];
  const target = (specifier: string): string | undefined =>
    specifier.startsWith('.') ? repoPath(resolve(dirname(path), specifier.replace(/\.js$/, '.ts'))) : undefined;
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const from = target(node.moduleSpecifier.text);
      const clause = node.importClause;
      if (from && clause) {
        if (clause.name) uses.push(`${from}#default`);
        const bindings = clause.namedBindings;
        if (bindings && ts.isNamespaceImport(bindings)) uses.push(`${from}#*`);
        if (bindings && ts.isNamedImports(bindings))
          for (const element of bindings.elements) uses.push(`${from}#${(element.propertyName ?? element.name).text}`);
      }
    }
    if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const from = target(node.moduleSpecifier.text);
      const clause = node.exportClause;
      if (from && (!clause || ts.isNamespaceExport(clause))) uses.push(`${from}#*`);
      else if (from && clause && ts.isNamedExports(clause))
        for (const element of clause.elements) uses.push(`${from}#${(element.propertyName ?? element.name).text}`);
    }
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      const from = argument && ts.isStringLiteralLike(argument) ? target(argument.text) : undefined;
      if (from) {
        const holder = ts.isAwaitExpression(node.parent) ? node.parent.parent : undefined;
        if (holder && ts.isVariableDeclaration(holder) && ts.isObjectBindingPattern(holder.name)) {
          for (const element of holder.name.elements) {
            const name = element.propertyName ?? element.name;
            uses.push(`${from}#${ts.isIdentifier(name) ? name.text : '*'}`);
          }
        } else uses.push(`${from}#*`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return uses;
}

/** The runtime exports of `exporters` that no other file of `importers` uses, as `path#name`. */
export function unusedValueExports(exporters: ReadonlyMap<string, string>, importers: ReadonlyMap<string, string>): string[] {
  const usedBy = new Map<string, Set<string>>();
  for (const [path, text] of importers) {
    for (const use of usesOf(path, text)) {
      const users = usedBy.get(use) ?? new Set<string>();
      users.add(repoPath(path));
      usedBy.set(use, users);
    }
  }
  const usedElsewhere = (path: string, key: string) => [...(usedBy.get(key) ?? [])].some((user) => user !== path);
  const unused: string[] = [];
  for (const [absolute, text] of exporters) {
    const path = repoPath(absolute);
    for (const { name, value } of exportsOf(absolute, text)) {
      if (!value) continue;
      if (!usedElsewhere(path, `${path}#${name}`) && !usedElsewhere(path, `${path}#*`)) unused.push(`${path}#${name}`);
    }
  }
  return unused;
}

const read = (paths: readonly string[]) => new Map(paths.map((path) => [path, readFileSync(path, 'utf8')]));

describe('every runtime export of src is imported by another file of src, or justified', () => {
  const migrations = join(root, 'src', 'db', 'migrations');
  const everySrc = read(filesUnder(join(root, 'src')));
  const src = new Map([...everySrc].filter(([path]) => !path.startsWith(migrations)));
  const outside = read(['test', 'bench', join('clients', 'typescript', 'scripts')].flatMap((dir) => filesUnder(join(root, dir))));
  const unused = unusedValueExports(src, everySrc);

  it('holds for src', () => {
    assert.ok(src.size > 100, 'finds the files of src');
    const unjustified = unused.filter((key) => !(key in justifiedExports));
    const unusedAnywhere = new Set(unusedValueExports(src, new Map([...everySrc, ...outside])));
    const testOnly = unjustified.filter((key) => !unusedAnywhere.has(key));
    const dead = unjustified.filter((key) => unusedAnywhere.has(key));
    if (unjustified.length > 0)
      console.log(
        `${dead.length} exports nothing imports:\n${dead.join('\n')}\n` +
          `${testOnly.length} exports only test/, bench/ or the client's scripts import:\n${testOnly.join('\n')}`,
      );
    assert.deepEqual(unjustified, []);
  });

  it('justifies no export that another file of src imports, or that is not there any more', () => {
    const stale = Object.keys(justifiedExports).filter((key) => !unused.includes(key));
    assert.deepEqual(stale, []);
  });

  it('finds an unused function, const and class; passes types, imported values and re-exported ones', () => {
    const files = (entries: Record<string, string>) => new Map(Object.entries(entries).map(([path, text]) => [join(root, path), text]));
    const fixture = files({
      'src/x/a.ts': [
        'export function used() {}',
        'export const viaNamespace = 1;',
        'export function unused() {}',
        'export const alsoUnused = 2, [destructured] = [3];',
        'export class Unused {}',
        'export interface Shape { a: number }',
        'export type Alias = string;',
        'export function onlyHere() {}',
        'onlyHere();',
      ].join('\n'),
      'src/x/b.ts': "import { used } from './a.js';\nimport type { Shape } from './a.js';\nused();",
      'src/x/c.ts': "export { viaIndex } from './d.js';\nexport * from './e.js';",
      'src/x/d.ts': 'export const viaIndex = 1;',
      'src/x/e.ts': 'export const viaStar = 1;',
      'src/x/f.ts': "import { viaIndex, viaStar } from './c.js';\nconst { lazy } = await import('./g.js');",
      'src/x/g.ts': 'export const lazy = 1;\nexport const notTaken = 2;',
    });
    const ns = files({ 'src/x/h.ts': "import * as all from './a.js';" });
    assert.deepEqual(unusedValueExports(fixture, fixture).sort(), [
      'src/x/a.ts#Unused',
      'src/x/a.ts#alsoUnused',
      'src/x/a.ts#destructured',
      'src/x/a.ts#onlyHere',
      'src/x/a.ts#unused',
      'src/x/a.ts#viaNamespace',
      'src/x/g.ts#notTaken',
    ]);
    const withNamespace = new Map([...fixture, ...ns]);
    assert.deepEqual(unusedValueExports(withNamespace, withNamespace).sort(), ['src/x/g.ts#notTaken']);
  });
});
