import type { Command } from 'commander';
import { createAward } from '../modules/awards/awards.commands.js';
import { listAwards } from '../modules/awards/awards.reads.js';
import { systemClock } from '../shared/clock.js';
import { cliActor, withDatabase } from './context.js';
import { asOperatorErrors, printResult, printRows } from './output.js';

/** `award create|list` (docs/awards.md). */
export function registerAwardCommands(program: Command): void {
  const award = program.command('award').description("define a community's awards (assigned with POST /admin/v0/awards/{id}/assign)");
  award
    .command('create')
    .description('define an award')
    .requiredOption('--community <id>', 'community id')
    .requiredOption('--name <text>', 'the award name (unique in the community)')
    .option('--description <text>', 'what it is for')
    .option('--emoji <shortcode>', 'an emoji shortcode such as :trophy:')
    .option('--json', 'print JSON')
    .action(async (options: { community: string; name: string; description?: string; emoji?: string; json?: boolean }) => {
      const created = await asOperatorErrors(() =>
        withDatabase((database) =>
          createAward(
            { database, clock: systemClock, actor: cliActor(), communityId: options.community },
            {
              name: options.name,
              description: options.description,
              emoji: options.emoji,
            },
          ),
        ),
      );
      printResult({ json: Boolean(options.json) }, created, `Created award ${created.id} "${created.name}".`);
    });
  award
    .command('list')
    .description("list a community's awards with how many members hold each")
    .requiredOption('--community <id>', 'community id')
    .option('--json', 'print JSON')
    .action(async (options: { community: string; json?: boolean }) => {
      const awards = await asOperatorErrors(() => withDatabase((database) => listAwards({ database }, options.community)));
      printRows({ json: Boolean(options.json) }, awards, ['id', 'name', 'emoji', 'assigned_count', 'description', 'created_at']);
    });
}
