import { existsSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { ConfigError, loadConfig } from '../config.js';
import { Refused } from '../shared/failures.js';
import { registerCommunityCommands } from './community.cli.js';
import { registerDataCommands } from './data.cli.js';
import { extraCommands } from './extra-commands.js';
import { registerKeyCommands } from './key.cli.js';
import { refusalText } from './output.js';
import { missingNodeOptions, serverNodeOptions } from './server-node-options.js';

/** Exit statuses of the operator interface. */
const exitUserError = 1;
const exitUsageError = 2;

/** The `community-admin` command line. */
export async function runCli(argv: string[]): Promise<void> {
  // Variables already in the environment win over the file (process.loadEnvFile never overwrites).
  if (existsSync('.env')) process.loadEnvFile('.env');
  const program = new Command('community-admin')
    .description('Operate the Community Administration API service')
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text) });
  program
    .command('serve')
    .description('run the API server')
    .action(async () => {
      const config = loadConfig();
      const missing = missingNodeOptions(serverNodeOptions(config.database));
      if (missing.length > 0) {
        process.stderr.write(
          `warning: on PostgreSQL start node with ${missing.join(' ')} (e.g. NODE_OPTIONS=${missing.join(' ')} npm start): ` +
            'without it garbage collection takes about a third of an uncached page (README, "Scaling out")\n',
        );
      }
      // Loaded on demand: the operator commands start faster without the HTTP stack.
      const { runServer } = await import('../main.js');
      await runServer(config);
    });
  registerDataCommands(program);
  registerCommunityCommands(program);
  registerKeyCommands(program);
  for (const register of extraCommands) register(program);
  for (const command of program.commands) command.exitOverride();

  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are successes; anything else commander rejects is a usage error.
      process.exitCode = error.exitCode === 0 ? 0 : exitUsageError;
      return;
    }
    if (error instanceof Refused || error instanceof ConfigError) {
      process.stderr.write(`${error instanceof Refused ? refusalText(error) : error.message}\n`);
      process.exitCode = exitUserError;
      return;
    }
    process.stderr.write(`Unexpected error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = exitUserError;
  }
}
