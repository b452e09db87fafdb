import type { Command } from 'commander';
import { UserInputError } from '../errors.js';
import { createApiKey, revokeApiKey, rotateApiKey, setApiKeyPermissions } from '../modules/api-keys/api-keys.commands.js';
import { listApiKeys } from '../modules/api-keys/api-keys.reads.js';
import { systemClock } from '../shared/clock.js';
import { parseDuration, parseDurationOrZero } from '../shared/duration.js';
import { parsePermissionList, permissions } from '../shared/permissions.js';
import type { DurationMs } from '../shared/time.js';
import { cliActor, withDatabase } from './context.js';
import { asOperatorErrors, formatTable, printResult } from './output.js';

const defaultGrace = '24h';

/** Milliseconds of a duration option; names the option when the text is not a duration. */
function durationOption(option: string, text: string, allowZero = false): DurationMs {
  const ms = allowZero ? parseDurationOrZero(text) : parseDuration(text);
  if (ms === null)
    throw new UserInputError(`${option} must be a duration such as 30s, 15m, 24h or 90d (at most 100 years), not "${text}".`);
  return ms;
}

/** `key create|list|rotate|set-permissions|revoke`. */
export function registerKeyCommands(program: Command): void {
  const key = program.command('key').description('manage API keys');
  key
    .command('create')
    .description('create an API key (printed once)')
    .requiredOption('--community <id>', 'community id')
    .option('--label <text>', 'label', '')
    .option(
      '--permissions <list>',
      `comma-separated permissions (default: all, including future ones, except api_keys:write, which a key holds only when named: "all,api_keys:write"): ${permissions.join(', ')}`,
    )
    .option('--expires-in <duration>', 'lifetime: 30s, 15m, 24h, 90d (default: never expires)')
    .option('--json', 'print JSON')
    .action(async (options: { community: string; label: string; permissions?: string; expiresIn?: string; json?: boolean }) => {
      const held = options.permissions === undefined ? undefined : parsePermissionList(options.permissions);
      const expiresInMs = options.expiresIn === undefined ? undefined : durationOption('--expires-in', options.expiresIn);
      const created = await asOperatorErrors(() =>
        withDatabase((database) =>
          createApiKey(
            { database, clock: systemClock, actor: cliActor(), communityId: options.community },
            { label: options.label, permissions: held, expiresInMs },
          ),
        ),
      );
      const expiry = created.expires_at === null ? 'never expires' : `expires at ${created.expires_at}`;
      printResult(
        { json: Boolean(options.json) },
        created,
        `Created key ${created.id} for community ${created.community_id} (${created.permissions.join(', ')}; ${expiry}). Store it now; it is not shown again:\n${created.key}`,
      );
    });
  key
    .command('list')
    .description("list a community's keys (never their secrets)")
    .requiredOption('--community <id>', 'community id')
    .option('--json', 'print JSON')
    .action(async (options: { community: string; json?: boolean }) => {
      const keys = await asOperatorErrors(() => withDatabase((database) => listApiKeys({ database }, options.community)));
      // --json keeps the documented fields; the table also shows each key's kind (console sessions) and when it was last used.
      const documented = keys.map(({ id, label, created_at, revoked_at, permissions: held, all_permissions, expires_at }) => ({
        id,
        label,
        created_at,
        revoked_at,
        permissions: held,
        all_permissions,
        expires_at,
      }));
      const rows = keys.map((k) => ({ ...k, permissions: k.all_permissions ? 'all' : k.permissions.join(',') }));
      printResult(
        { json: Boolean(options.json) },
        documented,
        formatTable(rows, ['id', 'label', 'kind', 'permissions', 'expires_at', 'created_at', 'last_used_at', 'revoked_at']),
      );
    });
  key
    .command('rotate')
    .description('give a key a new secret (same id, label and permissions); the old secret works until the grace ends')
    .argument('<key_id>', 'key id')
    .option('--grace <duration>', 'how long the old secret keeps working: 0, 30s, 15m, 24h, 90d', defaultGrace)
    .option('--json', 'print JSON')
    .action(async (keyId: string, options: { grace: string; json?: boolean }) => {
      const graceMs = durationOption('--grace', options.grace, true);
      const rotated = await asOperatorErrors(() =>
        withDatabase((database) => rotateApiKey({ database, clock: systemClock, actor: cliActor() }, { keyId: keyId, graceMs: graceMs })),
      );
      printResult(
        { json: Boolean(options.json) },
        rotated,
        `Rotated key ${rotated.id}; the previous secret works until ${rotated.previous_valid_until}. Store the new one now; it is not shown again:\n${rotated.key}`,
      );
    });
  key
    .command('set-permissions')
    .description("replace a key's permissions (every instance applies it within a second)")
    .argument('<key_id>', 'key id')
    .requiredOption(
      '--permissions <list>',
      `comma-separated permissions, or "all" (every one but api_keys:write; "all,api_keys:write" for both): ${permissions.join(', ')}`,
    )
    .option('--json', 'print JSON')
    .action(async (keyId: string, options: { permissions: string; json?: boolean }) => {
      const held = parsePermissionList(options.permissions);
      const updated = await asOperatorErrors(() =>
        withDatabase((database) => setApiKeyPermissions({ database, actor: cliActor() }, { keyId: keyId, permissions: held })),
      );
      printResult(
        { json: Boolean(options.json) },
        updated,
        `Key ${updated.id} now holds ${held === 'all' ? 'all permissions' : updated.permissions.join(', ')}.`,
      );
    });
  key
    .command('revoke')
    .description('revoke a key at once')
    .argument('<key_id>', 'key id')
    .option('--json', 'print JSON')
    .action(async (keyId: string, options: { json?: boolean }) => {
      const revoked = await asOperatorErrors(() =>
        withDatabase((database) => revokeApiKey({ database, clock: systemClock, actor: cliActor() }, keyId)),
      );
      printResult({ json: Boolean(options.json) }, revoked, `Key ${revoked.id} revoked at ${revoked.revoked_at}.`);
    });
}
