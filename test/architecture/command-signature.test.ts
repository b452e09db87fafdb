// One command signature (issue 37): every exported function of a module's commands
// (`<resource>.commands.ts`, `commands/<topic>.ts`, and the webhook services until they are
// modules) is `command(ctx, input)`: two parameters, the first the context (`ctx`: a
// CommandContext or TxContext, src/write-path/command-context.ts, possibly destructured; or `w`, the
// open write itself, a CommunityWrite), the second what changes (a body, a record list, an id, or
// `{ id, ... }`). Exceptions are listed below, each with its reason.
//
// ARCH_ROOT=<checkout> runs the rule over another checkout's src (test/architecture/source-tree.ts).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { filesUnder, repoPath, root } from './source-tree.js';

const refs = 'src/modules/calendar-events/commands/references.ts';
const helper = 'a helper of the event commands (and the import), not a command: checks references against the database or the open write';
const webhookRead = "a read kept beside the webhook commands it pages for (to move to the module's reads: left from issue 37)";
const wh = 'src/modules/webhooks/commands';

/** `path#function` → why it keeps another signature. */
export const exceptions: Readonly<Record<string, string>> = {
  [`${refs}#resolvePeople`]: helper,
  [`${refs}#resolveTags`]: helper,
  [`${refs}#settleSlug`]: helper,
  [`${refs}#resolveCoverImage`]: helper,
  [`${refs}#resolveCoverImages`]: helper,
  'src/modules/communities/communities.commands.ts#bootstrapDefaultCommunity':
    'no input: the first start, which makes the default community itself',
  'src/modules/search/search.commands.ts#reindexCommunity': "no input: the community's whole index, from its posts",
  'src/modules/search/search.commands.ts#rebuildSearchIndex': "no input: the community's whole index, inside the caller's write",
  'src/modules/files/files.commands.ts#fileTooLarge':
    "the upload's 413, shared with the route's multipart parsing: a refusal, not a command",
  'src/modules/files/files.commands.ts#malformedBody': "the upload's 400 for a body the multipart parser refuses: a refusal, not a command",
  [`${wh}/deliveries.ts#listWebhookDeliveries`]: webhookRead,
  [`${wh}/deliveries.ts#pageWebhookDeliveries`]: webhookRead,
  'src/modules/chat-sync/commands/connections.ts#resealSecrets':
    "no input: every stored chat secret, re-sealed with the current SECRETS_KEY (an operator's key rotation)",
};

/**
 * Whole files whose exported functions keep their own signatures, each with why: the write path's
 * appenders are called by the write path itself with the write's parts, inside its commit.
 */
export const fileExceptions: Readonly<Record<string, string>> = {
  'src/modules/activities/commands/record-activities.ts': "the write path's appender of a change's records (called by writeCommunityData)",
  [`${wh}/record-deliveries.ts`]: "the write path's appender of a change's outbox rows (called by writeCommunityData)",
  [`${wh}/fan-out.ts`]: "the delivery worker's drain of the outbox (a worker's step, no community)",
};

const contextNames = new Set(['ctx', 'w']);

/** Whether a file of src holds commands (the CLI's `*.commands.ts` register commander commands: not these). */
export function holdsCommands(path: string): boolean {
  if (path.startsWith('src/cli/') || path in fileExceptions) return false;
  return /\.commands\.ts$/.test(path) || /\/commands\/[^/]+\.ts$/.test(path);
}

/** Why each exported function of a commands file breaks the signature, one line each (`path#name: why`). */
export function signatureViolations(path: string, text: string): string[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const check = (name: string, fn: ts.SignatureDeclarationBase) => {
    const key = `${path}#${name}`;
    if (key in exceptions) return;
    const names = fn.parameters.map((p) => (ts.isIdentifier(p.name) ? p.name.text : p.name.getText()));
    const first = fn.parameters[0];
    // The context may be destructured (`{ database, communityId }`): it is still the first of two.
    const isContext = first !== undefined && (ts.isObjectBindingPattern(first.name) || contextNames.has(names[0] ?? ''));
    if (names.length !== 2) found.push(`${key}: takes ${names.length} parameters (${names.join(', ')}), not (ctx, input)`);
    else if (!isContext) found.push(`${key}: its first parameter is "${names[0]}", not ctx (or w)`);
  };
  const exported = (node: ts.Node) =>
    ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  for (const statement of file.statements) {
    if (!exported(statement)) continue;
    if (ts.isFunctionDeclaration(statement) && statement.name) check(statement.name.text, statement);
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        const init = declaration.initializer;
        if (init && ts.isIdentifier(declaration.name) && (ts.isArrowFunction(init) || ts.isFunctionExpression(init)))
          check(declaration.name.text, init);
      }
    }
  }
  return found;
}

describe('every command is command(ctx, input)', () => {
  const files = filesUnder(join(root, 'src')).filter((path) => holdsCommands(repoPath(path)));

  it('holds for every commands file of src', () => {
    assert.ok(files.length > 10, 'finds the commands files');
    const violations = files.flatMap((path) => signatureViolations(repoPath(path), readFileSync(path, 'utf8')));
    if (violations.length > 0) console.log(`${violations.length} commands out of the signature:\n${violations.join('\n')}`);
    assert.deepEqual(violations, []);
  });

  it('lists no exception that is not there any more', () => {
    const exported = new Set<string>();
    for (const path of files) {
      const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
      for (const statement of file.statements) {
        if (ts.isFunctionDeclaration(statement) && statement.name) exported.add(`${repoPath(path)}#${statement.name.text}`);
        if (ts.isVariableStatement(statement))
          for (const d of statement.declarationList.declarations)
            if (ts.isIdentifier(d.name)) exported.add(`${repoPath(path)}#${d.name.text}`);
      }
    }
    assert.deepEqual(
      Object.keys(exceptions).filter((key) => !exported.has(key)),
      [],
    );
    assert.deepEqual(
      Object.keys(fileExceptions).filter((path) => !existsSync(join(root, path))),
      [],
    );
  });

  it('refuses three parameters, one, and a first parameter that is not the context; accepts (ctx, input) and (w, input)', () => {
    const check = (text: string) => signatureViolations('src/modules/x/x.commands.ts', text);
    assert.deepEqual(check('export async function f(ctx: CommandContext, input: { id: string }) {}'), []);
    assert.deepEqual(check('export const f = async (w: CommunityWrite, records: readonly R[]) => {};'), []);
    assert.deepEqual(check('function helper(a: number, b: number, c: number) {}'), []);
    assert.equal(check('export async function f(deps: Deps, communityId: string, body: Body) {}').length, 1);
    assert.equal(check('export const f = async (ctx: CommandContext) => {};').length, 1);
    assert.equal(check('export async function f(tx: Tx, records: readonly R[]) {}').length, 1);
    assert.deepEqual(check('export async function f({ database, communityId }: CommandContext, plan: string) {}'), []);
  });

  it('looks at the modules commands and the webhook services, not the CLI registrations', () => {
    assert.ok(holdsCommands('src/modules/awards/awards.commands.ts'));
    assert.ok(holdsCommands('src/modules/calendar-events/commands/events.ts'));
    assert.ok(holdsCommands('src/modules/webhooks/commands/endpoints.ts'));
    assert.ok(!holdsCommands('src/cli/award.commands.ts'));
    assert.ok(!holdsCommands('src/modules/awards/awards.rules.ts'));
  });
});
