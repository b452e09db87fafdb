import type { Command } from 'commander';
import { InvalidArgumentError, Option } from 'commander';
import { UserInputError } from '../errors.js';
import { requireCommunity } from '../modules/communities/communities.reads.js';
import { systemClock } from '../shared/clock.js';
import { cliActor, withDatabase } from './context.js';
import { asOperatorErrors, printResult } from './output.js';
import { countsFor, runSeed, type SeedSize, todayUtc } from './seed/run-seed.js';

interface SeedCommandOptions {
  community: string;
  size: string;
  events?: number;
  posts?: number;
  profiles?: number;
  seed?: string;
  anchor?: string;
  chunk?: number;
  json?: boolean;
}

const count = (value: string): number => {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a whole number');
  return Number(value);
};

const isSize = (value: string): value is SeedSize => value === 'small' || value === 'large';

/** `seed`: generates a realistic demo community (also the data of the benchmarks). */
export function registerSeedCommands(program: Command): void {
  program
    .command('seed')
    .description('generate a realistic community: profiles, members, groups, feeds, posts, calendar events (deterministic)')
    .requiredOption('--community <id>', 'community id')
    .addOption(
      new Option('--size <size>', 'small (a quick demo) or large (100k events, 100k posts, 50k profiles)')
        .choices(['small', 'large'])
        .default('small'),
    )
    .option('--events <n>', 'calendar events (overrides the size)', count)
    .option('--posts <n>', 'posts (overrides the size)', count)
    .option('--profiles <n>', 'profiles, and as many members (overrides the size)', count)
    .option('--seed <text>', 'seed of the generator (default: the community id, so a re-run changes nothing)')
    .option('--anchor <date>', 'the "now" that dates spread around (default: the start of today, UTC)')
    .option('--chunk <n>', 'records per import transaction', count, 5000)
    .option('--json', 'print JSON')
    .action(async (options: SeedCommandOptions) => {
      const size: SeedSize = isSize(options.size) ? options.size : 'small';
      const anchor = options.anchor === undefined ? todayUtc(systemClock.now()) : Date.parse(options.anchor);
      if (Number.isNaN(anchor)) throw new UserInputError('--anchor must be a date such as 2026-01-01.');
      const counts = countsFor(size, options);
      const started = performance.now();
      const result = await withDatabase(async (database) => {
        await asOperatorErrors(() => requireCommunity({ database }, options.community));
        // A bulk load touches index pages all over the file: a larger page cache for this one
        // connection keeps them in memory (the server's own settings are not affected).
        database.sqlite?.pragma('cache_size = -262144');
        return runSeed(database, systemClock, {
          communityId: options.community,
          seed: options.seed ?? options.community,
          anchor,
          counts,
          chunkSize: Math.max(1, options.chunk ?? 5000),
          progress: (line) => process.stderr.write(`${line}\n`),
          // As `import` does: each chunk's import.completed names the operator, not the server.
          actor: cliActor(),
        });
      });
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      const summary = Object.entries(result.counts)
        .map(([section, n]) => `${section}: ${n}`)
        .join(', ');
      printResult({ json: Boolean(options.json) }, result.counts, `Seeded ${summary} in ${seconds} s.`);
    });
}
