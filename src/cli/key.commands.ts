import type { Command } from 'commander';
import { createApiKey, listApiKeys, revokeApiKey } from '../modules/api-keys/api-keys.service.js';
import { systemClock } from '../shared/clock.js';
import { withDatabase } from './context.js';
import { formatTable, printResult } from './output.js';

/** `key create|list|revoke`. */
export function registerKeyCommands(program: Command): void {
  const key = program.command('key').description('manage API keys');
  key
    .command('create')
    .description('create an API key (printed once)')
    .requiredOption('--community <id>', 'community id')
    .option('--label <text>', 'label', '')
    .option('--json', 'print JSON')
    .action(async (options: { community: string; label: string; json?: boolean }) => {
      const created = await withDatabase((database) => createApiKey(database, systemClock, options.community, options.label));
      printResult(
        { json: Boolean(options.json) },
        created,
        `Created key ${created.id} for community ${created.community_id}. Store it now; it is not shown again:\n${created.key}`,
      );
    });
  key
    .command('list')
    .description("list a community's keys (never their secrets)")
    .requiredOption('--community <id>', 'community id')
    .option('--json', 'print JSON')
    .action(async (options: { community: string; json?: boolean }) => {
      const keys = await withDatabase((database) => listApiKeys(database, options.community));
      // --json keeps exactly the documented fields; the table also shows when each key was last used.
      const documented = keys.map(({ id, label, created_at, revoked_at }) => ({ id, label, created_at, revoked_at }));
      printResult(
        { json: Boolean(options.json) },
        documented,
        formatTable(keys as unknown as Record<string, unknown>[], ['id', 'label', 'created_at', 'last_used_at', 'revoked_at']),
      );
    });
  key
    .command('revoke')
    .description('revoke a key at once')
    .argument('<key_id>', 'key id')
    .option('--json', 'print JSON')
    .action(async (keyId: string, options: { json?: boolean }) => {
      const revoked = await withDatabase((database) => revokeApiKey(database, systemClock, keyId));
      printResult({ json: Boolean(options.json) }, revoked, `Key ${revoked.id} revoked at ${revoked.revoked_at}.`);
    });
}
