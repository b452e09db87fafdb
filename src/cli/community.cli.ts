import type { Command } from 'commander';
import { createCommunity, setCommunityPlan } from '../modules/communities/communities.commands.js';
import { listCommunities } from '../modules/communities/communities.reads.js';
import { systemClock } from '../shared/clock.js';
import { cliActor, withDatabase } from './context.js';
import { asOperatorErrors, printResult, printRows } from './output.js';

/** `community create|list|set-plan`. */
export function registerCommunityCommands(program: Command): void {
  const community = program.command('community').description('manage communities');
  community
    .command('create')
    .description('create a community')
    .requiredOption('--name <name>', 'community name')
    .requiredOption('--plan <plan>', 'free, growth, momentum or enterprise')
    .option('--json', 'print JSON')
    .action(async (options: { name: string; plan: string; json?: boolean }) => {
      const created = await asOperatorErrors(() =>
        withDatabase((database) =>
          createCommunity({ database, clock: systemClock, actor: cliActor() }, { name: options.name, plan: options.plan }),
        ),
      );
      printResult({ json: Boolean(options.json) }, created, `Created community ${created.id} "${created.name}" (${created.plan}).`);
    });
  community
    .command('list')
    .description('list communities')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const communities = await withDatabase((database) => listCommunities({ database }));
      printRows({ json: Boolean(options.json) }, communities, ['id', 'name', 'plan']);
    });
  community
    .command('set-plan')
    .description("change a community's plan")
    .argument('<id>', 'community id')
    .argument('<plan>', 'free, growth, momentum or enterprise')
    .option('--json', 'print JSON')
    .action(async (id: string, plan: string, options: { json?: boolean }) => {
      const updated = await asOperatorErrors(() => withDatabase((database) => setCommunityPlan({ database, communityId: id }, plan)));
      printResult({ json: Boolean(options.json) }, updated, `Community ${updated.id} is now on the ${updated.plan} plan.`);
    });
}
