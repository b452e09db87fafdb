// The rule that makes the write path impossible to forget, checked over the source.
//
// A change of community data goes through `writeCommunityData` (src/write-path/), which opens the
// transaction and bumps the data versions that cached answers are keyed by. The source keeps that
// true when:
//   1. no file outside src/write-path (and the migrations) opens a transaction (`.transaction()`,
//      `.startTransaction()`): the only `Tx` in the program is the one the write path hands out;
//   2. every write statement (insertInto, updateTable, deleteFrom, replaceInto, mergeInto) on a
//      community table is run on a parameter declared `tx: Tx` (exactly `Tx`, not `Db | Tx`) of the
//      function it is written in. TypeScript refuses to pass a `Db` where a `Tx` is declared, so such a
//      function can only be reached with the write path's transaction (`w.tx`);
//   3. no SQL text (raw `sql` templates or strings) inserts into, updates or deletes from a
//      community table;
//   4. outside the write path, the `communities` table is never updated in a statement that names a
//      version column: versions are bumped by `w.touch(...)` only.
// Community tables are every table of `DB` in src/db/schema.ts except the few listed below as not
// community data (each with its reason): a new table is community data until someone says otherwise.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { chainTop, tableNamesOf } from './source-tree.js';

const root = join(import.meta.dirname, '..', '..');
const srcDir = join(root, 'src');

/** Tables that are not a community's data: writing them bumps no version and needs no outbox entry. */
export const notCommunityData: Readonly<Record<string, string>> = {
  communities: 'the tenant itself (name, plan); its version columns are bumped by the write path only (rule 4)',
  api_keys: 'credentials, not data any answer shows',
  console_links: 'one-time console sign-in tokens (hashed): credentials, like api_keys',
  chat_connections: "the operator's chat configuration",
  idempotency_keys: 'stored responses of the idempotency layer',
  webhook_endpoints: "an integrator's webhook configuration (like api_keys): no cached answer shows it",
  webhook_deliveries: 'one row per (webhook event, endpoint): fanned out from webhook_outbox by the delivery worker, then updated by it',
  webhook_delivery_attempts: 'the attempt log of webhook deliveries, written by the delivery worker beside the delivery it updates',
  award_notifications:
    "Slack messages telling award recipients: written in the assignment's transaction, then updated by their sending worker",
  webhook_outbox:
    "the webhook outbox: written in the change's transaction by recordOutboxEntries, fanned out to deliveries after the commit",
  chat_sync_connections: "the operator's chat bot configuration (sealed secrets)",
  chat_sync_checkpoints: 'where a chat backfill stands; the data it reads is written through the write path',
  chat_event_queue: 'Slack deliveries waiting to be applied; applying one goes through the write path',
  chat_sync_jobs: 'backfills the server runs for the API (state and progress); the data a backfill reads is written through the write path',
  chat_sync_status: "what was last learnt of the community's Slack connection (token checks, bot presence, last backfill)",
  activities:
    "the activity log: appended in a change's own transaction by the write path (recordActivities) and the import, never by a command; pruned by retention outside any change",
  activity_chain_heads:
    "the head of each community's activity chain, moved with every append (src/modules/activities/activities.queries.ts)",
  file_upload_chunks:
    'an upload streaming in, staged outside any transaction; it becomes files and file_chunks rows only in the write path (commitStagedFile)',
};

/** Folders whose files may write anything: the write path itself and the migrations (schema, not data). */
const exempt = ['src/write-path/', 'src/db/migrations/'];

const writeMethods = new Set(['insertInto', 'updateTable', 'deleteFrom', 'replaceInto', 'mergeInto']);
const transactionMethods = new Set(['transaction', 'startTransaction']);

/** The tables of `DB` in src/db/schema.ts. */
export function schemaTables(): string[] {
  const file = ts.createSourceFile('schema.ts', readFileSync(join(srcDir, 'db', 'schema.ts'), 'utf8'), ts.ScriptTarget.Latest, true);
  for (const statement of file.statements) {
    if (ts.isInterfaceDeclaration(statement) && statement.name.text === 'DB') {
      return statement.members.flatMap((member) => (member.name && ts.isIdentifier(member.name) ? [member.name.text] : []));
    }
  }
  throw new Error('no interface DB in src/db/schema.ts');
}

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (entry.name.endsWith('.ts')) yield path;
  }
}

/** The identifier a chain such as `tx.insertInto(...).values(...)` starts from, if any. */
function chainRoot(expression: ts.Expression): ts.Identifier | undefined {
  let node: ts.Expression = expression;
  for (;;) {
    if (ts.isIdentifier(node)) return node;
    if (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)) node = node.expression;
    else if (ts.isCallExpression(node) || ts.isNonNullExpression(node) || ts.isParenthesizedExpression(node)) node = node.expression;
    else if (ts.isAwaitExpression(node) || ts.isAsExpression(node)) node = node.expression;
    else return undefined;
  }
}

/** The type annotation (as written) of the parameter of an enclosing function named `name`; null when none declares it. */
function parameterType(node: ts.Node, name: string): string | null | undefined {
  for (let at: ts.Node | undefined = node.parent; at; at = at.parent) {
    if (ts.isFunctionLike(at)) {
      const parameter = at.parameters.find((p) => ts.isIdentifier(p.name) && p.name.text === name);
      if (parameter) return parameter.type ? parameter.type.getText() : null;
    }
  }
  return undefined;
}

const sqlWrite = /\b(?:insert\s+into|update|delete\s+from)\s+["`]?([a-z_][a-z0-9_]*)/gi;

/** The rule's violations in one file's text (`path` relative to the repository, for messages). */
export function violationsIn(path: string, text: string, communityTables: ReadonlySet<string>): string[] {
  if (exempt.some((folder) => path.startsWith(folder))) return [];
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const where = (node: ts.Node) => `${path}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = node.expression.name.text;
      if (transactionMethods.has(method)) {
        found.push(`${where(node)}: opens a transaction; community data changes through writeCommunityData`);
      }
      if (writeMethods.has(method)) {
        const argument = node.arguments[0];
        // A table named by a variable is read from its type (a generic builder's `table as Queue`); a
        // variable whose type names no table, or names one community table, is held to the rule.
        const tables = argument ? tableNamesOf(argument, file).map((name) => name.split(/\s/)[0] ?? name) : [];
        const table = tables.length === 1 ? tables[0] : undefined;
        if (tables.length === 0 || tables.some((name) => communityTables.has(name))) {
          const rootId = chainRoot(node.expression.expression);
          const type = rootId ? parameterType(node, rootId.text) : undefined;
          if (type !== 'Tx') {
            const on = rootId ? `"${rootId.text}"${type ? ` (declared ${type})` : ''}` : 'an expression';
            found.push(`${where(node)}: ${method}(${table ?? '<variable>'}) on ${on}, not on a parameter declared "tx: Tx"`);
          }
        }
        if (tables.includes('communities') && /_version\b/.test(chainTop(node).getText())) {
          found.push(`${where(node)}: updates a version column of communities outside the write path (use w.touch)`);
        }
      }
    }
    if (ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      for (const match of node.text.matchAll(sqlWrite)) {
        const table = (match[1] ?? '').toLowerCase();
        if (communityTables.has(table)) found.push(`${where(node)}: SQL text writes ${table}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

const communityTables = new Set(schemaTables().filter((table) => !(table in notCommunityData)));

describe('the write path is the only way to change community data (rule at the top of this file)', () => {
  it('knows the community tables from src/db/schema.ts', () => {
    for (const table of Object.keys(notCommunityData)) assert.ok(schemaTables().includes(table), `${table} is not in DB any more`);
    for (const table of ['profiles', 'members', 'groups', 'feeds', 'posts', 'calendar_events', 'calendar_event_attendees']) {
      assert.ok(communityTables.has(table), table);
    }
  });

  it('holds for every file of src', () => {
    const violations: string[] = [];
    for (const path of sourceFiles(srcDir)) {
      violations.push(...violationsIn(relative(root, path).split('\\').join('/'), readFileSync(path, 'utf8'), communityTables));
    }
    assert.deepEqual(violations, []);
  });

  // The rule itself, on small sources: each of these is a way a writer could forget the write path.
  const check = (text: string) => violationsIn('src/modules/x/x.queries.ts', text, communityTables);

  it('accepts a write on a parameter declared Tx, and writes of tables that are not community data', () => {
    assert.deepEqual(
      check(`export async function f(tx: Tx, id: string) { await tx.deleteFrom('posts').where('id', '=', id).execute(); }`),
      [],
    );
    assert.deepEqual(check(`export const f = (db: Db) => db.updateTable('api_keys').set({ revoked_at: 1 }).execute();`), []);
    assert.deepEqual(check(`export const f = (db: Db) => db.updateTable('communities').set({ plan: 'free' }).execute();`), []);
    // A generic builder's table, typed as tables that are not community data (src/db/leased-queue.ts).
    assert.deepEqual(
      check(
        `type Q = 'chat_event_queue' | 'award_notifications';\nexport const f = (db: Db, table: Q) => db.updateTable(table as Q).set(x).execute();`,
      ),
      [],
    );
  });

  it('refuses a write on a Db, on a Db | Tx, on a local variable, and on a table named by a variable', () => {
    assert.equal(check(`export const f = (db: Db) => db.insertInto('members').values(row).execute();`).length, 1);
    assert.equal(check(`export async function f(db: Db | Tx) { await db\n.updateTable('calendar_events').set(x).execute(); }`).length, 1);
    assert.equal(
      check(`export async function f(database: Database) { const db = database.db; await db.deleteFrom('feeds').execute(); }`).length,
      1,
    );
    assert.equal(check(`export async function f(db: Db, table: 'groups') { await db.deleteFrom(table).execute(); }`).length, 1);
    assert.equal(
      check(`export async function f(db: Db, table: 'api_keys' | 'groups') { await db.deleteFrom(table).execute(); }`).length,
      1,
    );
    assert.equal(check(`export async function f(db: Db, table: string) { await db.deleteFrom(table).execute(); }`).length, 1);
  });

  it('refuses opening a transaction, SQL text that writes a community table, and bumping a version by hand', () => {
    assert.equal(check(`export const f = (db: Db) => db.transaction().execute(async (tx) => 1);`).length, 1);
    assert.equal(check('export const f = (db: Db) => sql`DELETE FROM calendar_events WHERE id = ${1}`.execute(db);').length, 1);
    assert.equal(check(`export const q = 'update posts set in_home = 0';`).length, 1);
    assert.equal(
      check(
        `export const f = (db: Db) => db.updateTable('communities').set((eb) => ({ events_version: eb('events_version', '+', 1) })).execute();`,
      ).length,
      1,
    );
  });
});
