import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { UserInputError } from '../errors.js';
import { createConsoleLink } from '../modules/console-sessions/console-sessions.commands.js';
import {
  consoleBaseUrl,
  consoleLinkUrl,
  defaultLinkLifetime,
  parseLinkLifetime,
} from '../modules/console-sessions/console-sessions.rules.js';
import { systemClock } from '../shared/clock.js';
import { withDatabase } from './context.js';
import { asOperatorErrors, printResult } from './output.js';

/** `console link`: the one-time sign-in URL of the operator's console (docs/console.md). */
export function registerConsoleCommands(program: Command): void {
  const consoleCommand = program.command('console').description("the operator's console (docs/console.md)");
  consoleCommand
    .command('link')
    .description('print a one-time URL that signs a browser in to the console of a community')
    .requiredOption('--community <id>', 'community id')
    .option('--expires <duration>', 'how long the link works: 90s, 15m, 2h (at most 24h)', defaultLinkLifetime)
    .option('--json', 'print JSON')
    .action(async (options: { community: string; expires: string; json?: boolean }) => {
      const lifetime = parseLinkLifetime(options.expires);
      if ('problem' in lifetime) throw new UserInputError(`--expires ${lifetime.problem}.`);
      if (!loadConfig().console)
        throw new UserInputError('The console is turned off (CONSOLE=false): unset CONSOLE, or set CONSOLE=true, to use it.');
      const { link, url } = await asOperatorErrors(() =>
        withDatabase(async (database, config) => {
          const created = await createConsoleLink({ database, clock: systemClock, communityId: options.community }, lifetime.ms);
          const base = consoleBaseUrl(config.files.publicBaseUrl, config);
          return { link: created, url: consoleLinkUrl(base, created.token) };
        }),
      );
      printResult(
        { json: Boolean(options.json) },
        { url, expires_at: link.expires_at },
        [
          `Console link for community ${link.community_id} (works once, until ${link.expires_at}):`,
          '',
          `  ${url}`,
          '',
          'Open it in a browser; it signs that browser in. Anyone holding it can do the same until it is used: do not share it.',
        ].join('\n'),
      );
    });
}
