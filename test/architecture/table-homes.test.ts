// One home per table (issue 29; the table of homes is in docs/development.md, "Table homes").
//
// Every statement on a table of `DB` (src/db/schema.ts) lives in that table's home and nowhere else:
//   - a Kysely statement is a call of selectFrom, insertInto, updateTable, deleteFrom, replaceInto or
//     mergeInto whose first argument names the table (subqueries included: `eb.selectFrom('x')` inside
//     another table's statement is a statement on x; a join is not);
//   - SQL text (a `sql` template, a string) that names the table as the target of FROM, INTO or
//     UPDATE counts like one (a table it JOINs is a join, as in a Kysely statement);
//   - in a resource module (src/modules/<resource>/) the statements are in its `queries` role
//     (`<resource>.queries.ts` or `queries/<topic>.ts`); outside src/modules, in files named
//     `*.queries.ts` of the home's folder;
//   - the migrations (src/db/migrations/) keep their own SQL, and the write path (src/write-path/)
//     updates the version columns of `communities` (it IS the write path; nothing else may);
//   - a generic builder, a named function of src/db/ (not the migrations) whose statement takes its
//     table from one of its own parameters (`orderedRows(tx, engine, table, ...)` in
//     src/db/ordered-rows.ts), holds no table of its own, so its statement is not checked; instead
//     every CALL of it counts as a statement on the table it passes: the call is in that table's
//     home (`feedRowsInIdOrder` in feeds.queries.ts calls `orderedRows(..., 'feeds', ...)`), and a
//     call whose table the rule cannot read (neither a literal nor a variable typed as literals) is
//     refused, since no home could be checked. Calls are matched by the builder's name.
// Everything else (other modules, import, export, chat sync, seed, webhooks, metrics) calls the
// home's functions. A table added to DB fails here until it is given a home.
//
// ARCH_ROOT=<checkout> runs the rule over another checkout's src (test/architecture/source-tree.ts).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { chainTop, filesUnder, repoPath, root, tableNamesOf } from './source-tree.js';

/** The home of each table: the folder whose `queries` files alone run statements on it. */
export const tableHomes: Readonly<Record<string, string>> = {
  communities: 'src/modules/communities/',
  api_keys: 'src/modules/api-keys/',
  console_links: 'src/modules/console-sessions/',
  chat_connections: 'src/modules/chat-connections/',
  profiles: 'src/modules/profiles/',
  members: 'src/modules/members/',
  chat_invitations: 'src/modules/members/',
  member_search: 'src/modules/members/',
  groups: 'src/modules/groups/',
  group_members: 'src/modules/groups/',
  feeds: 'src/modules/feeds/',
  posts: 'src/modules/posts/',
  post_search: 'src/modules/search/',
  post_search_unpaired: 'src/modules/search/',
  calendar_events: 'src/modules/calendar-events/',
  calendar_event_tags: 'src/modules/calendar-events/',
  calendar_event_feeds: 'src/modules/calendar-events/',
  calendar_event_people: 'src/modules/calendar-events/',
  calendar_event_attendees: 'src/modules/calendar-events/',
  awards: 'src/modules/awards/',
  award_assignments: 'src/modules/awards/',
  award_notifications: 'src/modules/awards/',
  files: 'src/modules/files/',
  file_chunks: 'src/modules/files/',
  file_upload_chunks: 'src/modules/files/',
  calendar_feeds: 'src/modules/calendar-feeds/',
  calendar_feed_entries: 'src/modules/calendar-feeds/',
  webhook_endpoints: 'src/modules/webhooks/',
  webhook_deliveries: 'src/modules/webhooks/',
  webhook_delivery_attempts: 'src/modules/webhooks/',
  webhook_outbox: 'src/modules/webhooks/',
  idempotency_keys: 'src/modules/idempotency/',
  activities: 'src/modules/activities/',
  activity_chain_heads: 'src/modules/activities/',
  chat_sync_connections: 'src/modules/chat-sync/',
  chat_sync_checkpoints: 'src/modules/chat-sync/',
  chat_event_queue: 'src/modules/chat-sync/',
  chat_sync_jobs: 'src/modules/chat-sync/',
  chat_sync_status: 'src/modules/chat-sync/',
};

const statementMethods = new Set(['selectFrom', 'insertInto', 'updateTable', 'deleteFrom', 'replaceInto', 'mergeInto']);

/**
 * SQL naming a table as a statement's target: FROM (subqueries and union arms included), INTO, UPDATE.
 * A JOIN is a join, allowed in the home of the statement's FROM table as in a Kysely statement.
 */
const sqlTarget = /\b(?:from|into|update)\s+["`]?([a-z_][a-z0-9_]*)["`]?/gi;
/** Text that is SQL rather than prose (a log line may say "from profiles"). */
const sqlVerb =
  /^\s*(?:select|insert|update|delete|with|replace)\b|\b(?:select\s+[\w*"(]|insert\s+into|delete\s+from|update\s+\w+\s+set)\b/i;

/** The tables of `DB` in `<root>/src/db/schema.ts`. */
export function schemaTables(at: string = root): string[] {
  const path = join(at, 'src', 'db', 'schema.ts');
  const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  for (const statement of file.statements) {
    if (ts.isInterfaceDeclaration(statement) && statement.name.text === 'DB') {
      return statement.members.flatMap((member) => (member.name && ts.isIdentifier(member.name) ? [member.name.text] : []));
    }
  }
  throw new Error(`no interface DB in ${path}`);
}

/** Whether a file of `home` may hold statements: its module's `queries` role, or a `*.queries.ts` outside src/modules. */
export function isQueriesFileOf(path: string, home: string): boolean {
  if (!path.startsWith(home)) return false;
  const rest = path.slice(home.length);
  if (home.startsWith('src/modules/')) {
    const resource = home.slice('src/modules/'.length, -1);
    return rest === `${resource}.queries.ts` || /^queries\/[a-z0-9-]+\.ts$/.test(rest);
  }
  return rest.endsWith('.queries.ts');
}

/** The text of a `sql` template or string that `node` is, or undefined. */
function literalText(node: ts.Node): string | undefined {
  if (ts.isNoSubstitutionTemplateLiteral(node) || ts.isStringLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) return [node.head.text, ...node.templateSpans.map((span) => span.literal.text)].join(' ? ');
  return undefined;
}

const isUpdate = (how: string, text: string) => how === 'updateTable' || (how === 'SQL text' && /^\s*update\b/i.test(text));

/** A generic builder of src/db/: a function whose statement's table is its parameter number `tableParameter`. */
export interface GenericBuilder {
  name: string;
  tableParameter: number;
}

/** Files whose functions may be generic builders. */
const mayHoldBuilders = (path: string): boolean => path.startsWith('src/db/') && !path.startsWith('src/db/migrations/');

/** The named function and parameter position when a statement's table argument (cast or not) is a parameter of an enclosing function. */
function tableParameterOf(argument: ts.Expression): GenericBuilder | undefined {
  let walked = argument;
  while (ts.isAsExpression(walked) || ts.isParenthesizedExpression(walked)) walked = walked.expression;
  if (!ts.isIdentifier(walked)) return undefined;
  const name = walked.text;
  for (let scope: ts.Node | undefined = walked.parent; scope; scope = scope.parent) {
    if (!ts.isFunctionLike(scope)) continue;
    const tableParameter = scope.parameters.findIndex((p) => ts.isIdentifier(p.name) && p.name.text === name);
    if (tableParameter < 0) continue;
    if (ts.isFunctionDeclaration(scope) && scope.name) return { name: scope.name.text, tableParameter };
    const declared = scope.parent;
    if (
      (ts.isArrowFunction(scope) || ts.isFunctionExpression(scope)) &&
      ts.isVariableDeclaration(declared) &&
      ts.isIdentifier(declared.name)
    )
      return { name: declared.name.text, tableParameter };
    return undefined;
  }
  return undefined;
}

const isStatementCall = (node: ts.Node): node is ts.CallExpression =>
  ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && statementMethods.has(node.expression.name.text);

/** The generic builders one file declares (none outside src/db/). */
export function genericBuildersIn(path: string, text: string): GenericBuilder[] {
  if (!mayHoldBuilders(path)) return [];
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: GenericBuilder[] = [];
  const visit = (node: ts.Node): void => {
    const argument = isStatementCall(node) ? node.arguments[0] : undefined;
    const builder = argument && tableParameterOf(argument);
    if (builder && !found.some((known) => known.name === builder.name)) found.push(builder);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/**
 * The statements of one file that are outside their table's home (`path` relative to the repository),
 * calls of the given generic builders included.
 */
export function homeViolationsIn(
  path: string,
  text: string,
  homes: Readonly<Record<string, string>> = tableHomes,
  builders: readonly GenericBuilder[] = [],
): string[] {
  if (path.startsWith('src/db/migrations/')) return [];
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const where = (node: ts.Node) => `${path}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const check = (node: ts.Node, table: string, how: string, statementText: string) => {
    const home = homes[table];
    if (home === undefined || isQueriesFileOf(path, home)) return;
    // The write path's one statement on communities bumps version columns (named through dataVersionColumn).
    if (
      table === 'communities' &&
      path.startsWith('src/write-path/') &&
      isUpdate(how, statementText) &&
      /_version\b|dataVersionColumn/.test(statementText)
    )
      return;
    const role = path.startsWith(home) ? ' (in its home, but not in a queries file)' : '';
    found.push(`${where(node)}: ${how} on ${table} outside its home ${home}${role}`);
  };
  const visit = (node: ts.Node): void => {
    if (isStatementCall(node) && ts.isPropertyAccessExpression(node.expression)) {
      const argument = node.arguments[0];
      // A generic builder's own statement: its calls are checked instead.
      const ofBuilder = mayHoldBuilders(path) && argument !== undefined && tableParameterOf(argument) !== undefined;
      const names = argument && !ofBuilder ? tableNamesOf(argument, file) : [];
      for (const name of names) check(node, name.split(/\s/)[0] ?? name, node.expression.name.text, chainTop(node).getText());
    }
    const builder =
      ts.isCallExpression(node) && ts.isIdentifier(node.expression)
        ? builders.find((b) => b.name === node.expression.getText())
        : undefined;
    if (builder && ts.isCallExpression(node)) {
      const argument = node.arguments[builder.tableParameter];
      const names = argument ? tableNamesOf(argument, file) : [];
      if (names.length === 0)
        found.push(`${where(node)}: ${builder.name}() on a table this rule cannot read (pass it as a literal, from the table's home)`);
      for (const name of names) check(node, name, `${builder.name}()`, '');
    }
    const sqlText = literalText(node);
    if (sqlText !== undefined && sqlVerb.test(sqlText)) {
      const tables = new Set([...sqlText.matchAll(sqlTarget)].map((match) => (match[1] ?? '').toLowerCase()));
      for (const table of tables) if (table in homes) check(node, table, 'SQL text', sqlText);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** Every violation in `<at>/src`, one line each. */
export function homeViolations(at: string = root): string[] {
  const files = filesUnder(join(at, 'src')).map((path) => ({ path: repoPath(path), text: readFileSync(path, 'utf8') }));
  const builders = files.flatMap(({ path, text }) => genericBuildersIn(path, text));
  return files.flatMap(({ path, text }) => homeViolationsIn(path, text, tableHomes, builders));
}

describe('one home per table (rule at the top of this file)', () => {
  it('gives every table of DB a home that exists', () => {
    const tables = schemaTables();
    assert.deepEqual(
      tables.filter((table) => !(table in tableHomes)),
      [],
      'tables of src/db/schema.ts without a home here',
    );
    assert.deepEqual(
      Object.keys(tableHomes).filter((table) => !tables.includes(table)),
      [],
      'homes of tables that are not in DB any more',
    );
  });

  it('holds for every file of src', () => {
    const violations = homeViolations();
    if (violations.length > 0) {
      const byTable = new Map<string, number>();
      for (const line of violations) {
        const table = / on ([a-z_]+) outside/.exec(line)?.[1] ?? '?';
        byTable.set(table, (byTable.get(table) ?? 0) + 1);
      }
      const summary = [...byTable].map(([table, n]) => `${table}: ${n}`).join(', ');
      console.log(`${violations.length} statements outside their table's home (${summary}):\n${violations.join('\n')}`);
    }
    assert.deepEqual(violations, []);
  });

  // The rule itself, on small sources.
  const check = (path: string, text: string) => homeViolationsIn(path, text);

  it("accepts a module's queries file, a queries folder, a *.queries.ts outside src/modules, joins, and the migrations", () => {
    assert.deepEqual(
      check('src/modules/posts/posts.queries.ts', `db.selectFrom('posts as p').innerJoin('profiles as a', 'a.id', 'p.author_profile_id')`),
      [],
    );
    assert.deepEqual(check('src/modules/calendar-events/queries/attendees.ts', `tx.deleteFrom('calendar_event_attendees')`), []);
    assert.deepEqual(check('src/modules/webhooks/queries/outbox.ts', `tx.insertInto('webhook_outbox')`), []);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the text is a source under test, with a template inside
    assert.deepEqual(check('src/db/migrations/001-initial.ts', 'sql`update profiles set state = ${s}`'), []);
    assert.deepEqual(check('src/write-path/write-community-data.ts', `tx.updateTable('communities').set({ events_version: 1 })`), []);
    assert.deepEqual(
      check('src/modules/posts/posts.queries.ts', 'sql`select p.id from posts p join profiles a on a.id = p.author_profile_id`'),
      [],
    );
  });

  it('refuses a statement in another module, in a non-queries file of its home, in a subquery, and in SQL text', () => {
    assert.equal(check('src/modules/chat-sync/commands/apply-event.ts', `tx.insertInto('profiles').values(row)`).length, 1);
    assert.equal(check('src/modules/awards/awards.commands.ts', `tx.insertInto('awards').values(row)`).length, 1);
    assert.equal(check('src/modules/webhooks/commands/fan-out.ts', `tx.deleteFrom('webhook_outbox')`).length, 1);
    assert.equal(
      check('src/modules/posts/posts.queries.ts', `db.selectFrom('posts').where((eb) => eb.exists(eb.selectFrom('members')))`).length,
      1,
    );
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the text is a source under test, with a template inside
    assert.equal(check('src/export/export.ts', 'sql`select id from profiles where community_id = ${c}`').length, 1);
    assert.deepEqual(check('src/export/export.ts', 'sql`select p.id from posts p join profiles a on a.id = p.author_profile_id`'), [
      'src/export/export.ts:1: SQL text on posts outside its home src/modules/posts/',
    ]);
    assert.equal(check('src/caching/data-version.ts', `const q = 'SELECT events_version FROM communities WHERE id = $1';`).length, 1);
    assert.equal(check('src/write-path/write-community-data.ts', `tx.updateTable('communities').set({ plan: 'free' })`).length, 1);
  });

  it('resolves a table named by a variable: a typed parameter, a cast to a type alias, a for-of over names', () => {
    assert.equal(
      check('src/export/rows.ts', `function f<T extends 'posts' | 'feeds'>(db: Db, table: T) { db.selectFrom(table); }`).length,
      2,
    );
    assert.equal(
      check('src/export/rows.ts', `type Some = 'awards' | 'files';\nconst f = (db: Db, t: string) => db.selectFrom(t as Some);`).length,
      2,
    );
    assert.equal(
      check('src/modules/chat-sync/x.ts', `for (const table of ['profiles', 'members'] as const) await tx.deleteFrom(table).execute();`)
        .length,
      2,
    );
    assert.deepEqual(check('src/modules/posts/posts.queries.ts', `db.selectFrom(page.as('page')); db.selectFrom(hits);`), []);
  });

  it('accepts a generic builder of src/db whose table is a parameter, and checks each of its calls against the home of the table it passes', () => {
    const builder = `type Ordered = 'posts' | 'feeds';
export function rowsInIdOrder<T extends Ordered>(tx: Db, table: T) { return tx.selectFrom(table as Ordered).orderBy('id'); }
export const countRows = (tx: Db, community: string, table: Ordered) => tx.selectFrom(table).select('id');`;
    const builders = genericBuildersIn('src/db/rows.ts', builder);
    assert.deepEqual(builders, [
      { name: 'rowsInIdOrder', tableParameter: 1 },
      { name: 'countRows', tableParameter: 2 },
    ]);
    assert.deepEqual(check('src/db/rows.ts', builder), []);
    // Outside src/db the same function is two statements out of their homes, and declares no builder.
    assert.equal(check('src/export/rows.ts', builder).length, 4);
    assert.deepEqual(genericBuildersIn('src/export/rows.ts', builder), []);
    const callIn = (path: string, text: string) => homeViolationsIn(path, text, tableHomes, builders);
    assert.deepEqual(callIn('src/modules/posts/posts.queries.ts', `rowsInIdOrder(tx, 'posts'); countRows(tx, c, 'posts');`), []);
    assert.deepEqual(callIn('src/export/export.ts', `rowsInIdOrder(tx, 'posts')`), [
      'src/export/export.ts:1: rowsInIdOrder() on posts outside its home src/modules/posts/',
    ]);
    assert.equal(callIn('src/modules/feeds/feeds.queries.ts', `countRows(tx, c, 'posts')`).length, 1);
    assert.equal(callIn('src/modules/posts/posts.reads.ts', `rowsInIdOrder(tx, 'posts')`).length, 1);
    // A table the rule cannot read is refused; one typed as literals is read like a statement's.
    assert.equal(callIn('src/modules/posts/posts.queries.ts', `rowsInIdOrder(tx, name)`).length, 1);
    assert.equal(callIn('src/export/x.ts', `function f(tx: Db, t: 'posts' | 'feeds') { return rowsInIdOrder(tx, t); }`).length, 2);
  });

  it('does not take prose for SQL', () => {
    assert.deepEqual(check('src/cli/x.ts', `log('copied 3 rows from profiles into the export')`), []);
  });
});
