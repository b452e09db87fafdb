// One home per table (issue 29; the table of homes is in docs/development.md, "Table homes").
//
// Every statement on a table of `DB` (src/db/schema.ts) lives in that table's home and nowhere else:
//   - a Kysely statement is a call of selectFrom, insertInto, updateTable, deleteFrom, replaceInto or
//     mergeInto whose first argument names the table (subqueries included: `eb.selectFrom('x')` inside
//     another table's statement is a statement on x; a join is not);
//   - SQL text (a `sql` template, a string) that names the table as the target of FROM, INTO or
//     UPDATE counts like one (a table it JOINs is a join, as in a Kysely statement);
//   - a table's home is ONE file, a queries file of a module of src/modules (`<resource>.queries.ts`
//     or `queries/<topic>.ts`): its statements are there and in no other file, even of the same
//     module; only the tables listed in `splitHomes`, with why, have their module's whole `queries/`
//     folder for home. No home is outside src/modules, so the rule holds for every file of src;
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
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { chainTop, filesUnder, repoPath, root, tableNamesOf } from './source-tree.js';

/**
 * The home of each table: the one queries file of its module that alone runs statements on it
 * (`<resource>.queries.ts` or `queries/<topic>.ts`), or, for the tables of `splitHomes` only, the
 * module's whole `queries/` folder.
 */
export const tableHomes: Readonly<Record<string, string>> = {
  communities: 'src/modules/communities/communities.queries.ts',
  api_keys: 'src/modules/api-keys/api-keys.queries.ts',
  console_links: 'src/modules/console-sessions/console-sessions.queries.ts',
  chat_connections: 'src/modules/chat-connections/chat-connections.queries.ts',
  profiles: 'src/modules/profiles/profiles.queries.ts',
  members: 'src/modules/members/members.queries.ts',
  chat_invitations: 'src/modules/members/members.queries.ts',
  member_search: 'src/modules/members/members.queries.ts',
  groups: 'src/modules/groups/groups.queries.ts',
  group_members: 'src/modules/groups/groups.queries.ts',
  feeds: 'src/modules/feeds/feeds.queries.ts',
  posts: 'src/modules/posts/posts.queries.ts',
  post_search: 'src/modules/search/queries/',
  post_search_unpaired: 'src/modules/search/queries/',
  calendar_events: 'src/modules/calendar-events/queries/',
  calendar_event_tags: 'src/modules/calendar-events/queries/',
  calendar_event_feeds: 'src/modules/calendar-events/queries/',
  calendar_event_people: 'src/modules/calendar-events/queries/children.ts',
  calendar_event_attendees: 'src/modules/calendar-events/queries/children.ts',
  awards: 'src/modules/awards/awards.queries.ts',
  award_assignments: 'src/modules/awards/awards.queries.ts',
  award_notifications: 'src/modules/awards/awards.queries.ts',
  files: 'src/modules/files/files.queries.ts',
  file_chunks: 'src/modules/files/files.queries.ts',
  file_upload_chunks: 'src/modules/files/files.queries.ts',
  calendar_feeds: 'src/modules/calendar-feeds/calendar-feeds.queries.ts',
  calendar_feed_entries: 'src/modules/calendar-feeds/calendar-feeds.queries.ts',
  webhook_endpoints: 'src/modules/webhooks/queries/endpoints.ts',
  webhook_deliveries: 'src/modules/webhooks/queries/deliveries.ts',
  webhook_delivery_attempts: 'src/modules/webhooks/queries/attempts.ts',
  webhook_outbox: 'src/modules/webhooks/queries/outbox.ts',
  idempotency_keys: 'src/modules/idempotency/idempotency.queries.ts',
  activities: 'src/modules/activities/activities.queries.ts',
  activity_chain_heads: 'src/modules/activities/activities.queries.ts',
  chat_sync_connections: 'src/modules/chat-sync/queries/connections.ts',
  chat_sync_checkpoints: 'src/modules/chat-sync/queries/checkpoints.ts',
  chat_event_queue: 'src/modules/chat-sync/queries/event-queue.ts',
  chat_sync_jobs: 'src/modules/chat-sync/queries/jobs.ts',
  chat_sync_status: 'src/modules/chat-sync/queries/status.ts',
};

/**
 * The tables whose statements a module splits over its `queries/` folder by topic rather than by
 * table, and why: the honest exceptions to one file per table.
 */
export const splitHomes: Readonly<Record<string, string>> = {
  calendar_events:
    "the list's filtered read (queries/list.ts) and the calendar feed's read (queries/feed.ts) are each one long statement, kept apart from the writes (queries/events.ts)",
  calendar_event_tags: "filtered on inside the list's and the feed's statements (subqueries), and written with an event's children",
  calendar_event_feeds: "filtered on inside the list's statement (a subquery), and written with an event's children",
  post_search: 'the search index: written by queries/entries.ts and searched by queries/hits.ts, each long, both on both tables',
  post_search_unpaired: 'the other half of the search index (post_search), same split',
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

/** Whether a file may hold statements of the table whose home is `home`: that file, or any file of that `queries/` folder. */
export function isQueriesFileOf(path: string, home: string): boolean {
  if (home.endsWith('/')) return /^[a-z0-9-]+\.ts$/.test(path.slice(home.length)) && path.startsWith(home);
  return path === home;
}

/** Why a table's home breaks the rule (outside a module's queries role, a folder not listed in splitHomes), or undefined. */
export function homeShapeViolation(table: string, home: string, split: Readonly<Record<string, string>> = splitHomes): string | undefined {
  const match = /^src\/modules\/([a-z0-9-]+)\/(.*)$/.exec(home);
  if (!match) return `${table}: home ${home} is not in a module of src/modules`;
  const [, resource, rest] = match;
  if (rest === 'queries/')
    return table in split ? undefined : `${table}: home ${home} is a folder; give it one file, or list why in splitHomes`;
  if (rest === `${resource}.queries.ts` || /^queries\/[a-z0-9-]+\.ts$/.test(rest ?? '')) return undefined;
  return `${table}: home ${home} is not a queries file of its module`;
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
    const module = /^src\/modules\/[a-z0-9-]+\//.exec(home)?.[0];
    const role = module && path.startsWith(module) ? ' (in its module, but not in its home)' : '';
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
  it('gives every table of DB a home that exists, a queries file of a module (a queries/ folder only for the listed splits)', () => {
    assert.deepEqual(
      Object.entries(tableHomes).flatMap(([table, home]) => {
        const why = homeShapeViolation(table, home) ?? (existsSync(join(root, home)) ? undefined : `${table}: ${home} does not exist`);
        return why ? [why] : [];
      }),
      [],
    );
    assert.deepEqual(
      Object.keys(splitHomes).filter((table) => !tableHomes[table]?.endsWith('/')),
      [],
      'tables of splitHomes whose home is one file now',
    );
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

  it("accepts a table's home file, a split home's queries folder, joins, and the migrations", () => {
    assert.deepEqual(
      check('src/modules/posts/posts.queries.ts', `db.selectFrom('posts as p').innerJoin('profiles as a', 'a.id', 'p.author_profile_id')`),
      [],
    );
    assert.deepEqual(check('src/modules/calendar-events/queries/children.ts', `tx.deleteFrom('calendar_event_attendees')`), []);
    assert.deepEqual(check('src/modules/calendar-events/queries/list.ts', `db.selectFrom('calendar_events')`), []);
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
    // Another queries file of the same module is not the table's home.
    assert.deepEqual(check('src/modules/webhooks/queries/outbox.ts', `db.selectFrom('webhook_endpoints')`), [
      'src/modules/webhooks/queries/outbox.ts:1: selectFrom on webhook_endpoints outside its home src/modules/webhooks/queries/endpoints.ts (in its module, but not in its home)',
    ]);
    assert.equal(check('src/modules/calendar-events/queries/attendees.ts', `tx.deleteFrom('calendar_event_attendees')`).length, 1);
    assert.equal(
      check('src/modules/posts/posts.queries.ts', `db.selectFrom('posts').where((eb) => eb.exists(eb.selectFrom('members')))`).length,
      1,
    );
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the text is a source under test, with a template inside
    assert.equal(check('src/export/export.ts', 'sql`select id from profiles where community_id = ${c}`').length, 1);
    assert.deepEqual(check('src/export/export.ts', 'sql`select p.id from posts p join profiles a on a.id = p.author_profile_id`'), [
      'src/export/export.ts:1: SQL text on posts outside its home src/modules/posts/posts.queries.ts',
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
      'src/export/export.ts:1: rowsInIdOrder() on posts outside its home src/modules/posts/posts.queries.ts',
    ]);
    assert.equal(callIn('src/modules/feeds/feeds.queries.ts', `countRows(tx, c, 'posts')`).length, 1);
    assert.equal(callIn('src/modules/posts/posts.reads.ts', `rowsInIdOrder(tx, 'posts')`).length, 1);
    // A table the rule cannot read is refused; one typed as literals is read like a statement's.
    assert.equal(callIn('src/modules/posts/posts.queries.ts', `rowsInIdOrder(tx, name)`).length, 1);
    assert.equal(callIn('src/export/x.ts', `function f(tx: Db, t: 'posts' | 'feeds') { return rowsInIdOrder(tx, t); }`).length, 2);
  });

  it('refuses a home outside src/modules, outside a queries role, or a folder not listed as a split', () => {
    assert.equal(homeShapeViolation('webhook_outbox', 'src/modules/webhooks/queries/outbox.ts'), undefined);
    assert.equal(homeShapeViolation('posts', 'src/modules/posts/posts.queries.ts'), undefined);
    assert.equal(homeShapeViolation('calendar_events', 'src/modules/calendar-events/queries/'), undefined);
    assert.ok(homeShapeViolation('webhook_outbox', 'src/webhooks/outbox.queries.ts'));
    assert.ok(homeShapeViolation('posts', 'src/modules/posts/posts.reads.ts'));
    assert.ok(homeShapeViolation('posts', 'src/modules/posts/queries/'));
  });

  it('does not take prose for SQL', () => {
    assert.deepEqual(check('src/cli/x.ts', `log('copied 3 rows from profiles into the export')`), []);
  });
});
