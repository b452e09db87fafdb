import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { migrateToLatest, openDatabase } from '../db/database.js';
import { UserInputError } from '../errors.js';
import { runImport } from '../import/run-import.js';
import { requireCommunity } from '../modules/communities/communities.reads.js';
import { systemClock } from '../shared/clock.js';
import { publicBaseUrl as configuredPublicBaseUrl } from '../shared/public-base-url.js';
import { cliActor, withDatabase } from './context.js';
import { asOperatorErrors, printResult } from './output.js';

/** `migrate` and `import`. */
export function registerDataCommands(program: Command): void {
  program
    .command('migrate')
    .description('bring the database schema up to date')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const config = loadConfig();
      const database = openDatabase(config.database, { poolSize: 1 });
      try {
        const applied = await migrateToLatest(database);
        printResult(
          { json: Boolean(options.json) },
          { applied },
          applied.length ? `Applied: ${applied.join(', ')}` : 'The schema is up to date.',
        );
      } finally {
        await database.close();
      }
    });

  program
    .command('import')
    .description('load a data file into a community (all or nothing, upsert by id)')
    .argument('<file>', 'JSON import file')
    .requiredOption('--community <id>', 'community id')
    .option('--json', 'print JSON')
    .action(async (file: string, options: { community: string; json?: boolean }) => {
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch {
        throw new UserInputError(`Cannot read ${file}.`);
      }
      let document: unknown;
      try {
        document = JSON.parse(text);
      } catch (error) {
        throw new UserInputError(`${file} is not valid JSON: ${(error as Error).message}`);
      }
      const counts = await withDatabase(async (database, config) => {
        await asOperatorErrors(() => requireCommunity({ database }, options.community));
        // Cover images named by file id get the URL the server would give them (PUBLIC_BASE_URL, else HOST and PORT).
        const publicBaseUrl = configuredPublicBaseUrl(config.files.publicBaseUrl, config);
        return runImport({ database, clock: systemClock, communityId: options.community, publicBaseUrl, actor: cliActor() }, document);
      });
      const summary = Object.entries(counts)
        .map(([section, n]) => `${section}: ${n}`)
        .join(', ');
      printResult({ json: Boolean(options.json) }, counts, `Imported ${summary || 'nothing'}.`);
    });
}
