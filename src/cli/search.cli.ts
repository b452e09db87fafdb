import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { UserInputError } from '../errors.js';
import { requireCommunity } from '../modules/communities/communities.reads.js';
import { reindexCommunity } from '../modules/search/search.commands.js';
import { searchPosts } from '../modules/search/search.reads.js';
import { parseSearchQuery, searchText } from '../modules/search/search.rules.js';
import { maxQueryLength } from '../modules/search/search.schemas.js';
import { systemClock } from '../shared/clock.js';
import { withDatabase } from './context.js';
import { asOperatorErrors, formatTable, printResult } from './output.js';

interface SearchOptions {
  community?: string;
  page: number;
  perPage: number;
  json?: boolean;
}

const whole = (min: number, max: number) => (value: string) => {
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) throw new InvalidArgumentError(`must be ${min} to ${max}`);
  return Number(value);
};

/** `search TEXT` (the API's search, uncached) and `search reindex` (rebuilds a community's index). */
export function registerSearchCommands(program: Command): void {
  const search = program
    .command('search')
    .description('search the posts of a community as GET /admin/v0/search does (docs/search.md); `search reindex` rebuilds its index')
    .argument('<text>', 'what to find (the API\'s query language: words, "a phrase", -word, word*)')
    // Not a required option: commander would then require it of `search reindex ...` before its own.
    .option('--community <id>', 'community id (required)')
    .option('--page <n>', '0-based page', whole(0, 2_147_483_647), 0)
    .option('--per-page <n>', 'posts per page, 1 to 50', whole(1, 50), 10)
    .option('--json', 'print the page as the API answers it (page, totals, records)')
    .action(async (text: string, options: SearchOptions) => {
      if (options.community === undefined) throw new UserInputError("required option '--community <id>' not specified");
      if (text.trim() === '' || [...text.trim()].length > maxQueryLength) {
        throw new UserInputError(`The text must be 1 to ${maxQueryLength} characters after trimming.`);
      }
      const query = parseSearchQuery(searchText(text));
      const communityId = options.community;
      await withDatabase(async (database) => {
        await asOperatorErrors(() => requireCommunity({ database }, communityId));
        const filters = { feedId: undefined, authorProfileId: undefined };
        const { ranked: _, ...page } = await searchPosts(database, communityId, query, filters, options.page, options.perPage);
        const records = page.records.map((record) => JSON.parse(record) as Record<string, unknown>);
        const rows = records.map((record) => ({
          id: record.id,
          latest_activity_at: record.latest_activity_at,
          feed: (record.feed as { label?: string } | undefined)?.label ?? '',
          title: record.title || String(record.body_plaintext ?? '').slice(0, 60),
        }));
        const summary = `${page.total_records} post(s) found; page ${page.page} of ${page.total_pages}.`;
        printResult(
          { json: Boolean(options.json) },
          { ...page, records },
          `${formatTable(rows, ['id', 'latest_activity_at', 'feed', 'title'])}\n${summary}`,
        );
      });
    });
  search
    .command('reindex')
    .description("rebuild a community's search index from its posts (in one transaction); --community as for search")
    .action(async (_options: unknown, command: Command) => {
      // `search` reads the options wherever they stand, so --community and --json are its own.
      const { community, json } = command.optsWithGlobals<{ community?: string; json?: boolean }>();
      if (community === undefined) throw new UserInputError("required option '--community <id>' not specified");
      const started = performance.now();
      const indexed = await withDatabase(async (database) => {
        await asOperatorErrors(() => requireCommunity({ database }, community));
        return reindexCommunity({ database, clock: systemClock, communityId: community });
      });
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      printResult({ json: Boolean(json) }, { indexed }, `Indexed ${indexed} post(s) in ${seconds} s.`);
    });
}
