import type { Command } from 'commander';
import { createCalendarFeed, revokeCalendarFeedById } from '../modules/calendar-feeds/calendar-feeds.commands.js';
import { listCalendarFeeds } from '../modules/calendar-feeds/calendar-feeds.reads.js';
import { systemClock } from '../shared/clock.js';
import { publicBaseUrl } from '../shared/public-base-url.js';
import { SecretBox } from '../shared/secret-box.js';
import { cliActor, withDatabase } from './context.js';
import { asOperatorErrors, printResult, printRows } from './output.js';

/** `calendar-feed create|list|revoke` (docs/calendar-feeds.md). */
export function registerCalendarFeedCommands(program: Command): void {
  const feed = program.command('calendar-feed').description("iCalendar subscriptions of a community's events (GET /calendar/{token}.ics)");
  feed
    .command('create')
    .description('create a feed (its URL is printed once: only its hash is kept)')
    .requiredOption('--community <id>', 'community id')
    .option('--label <text>', "shown after the community's name as the calendar's name")
    .option('--tag <id-or-label>', 'only events carrying this tag')
    .option('--include-unlisted', 'show unlisted events too')
    .option('--json', 'print JSON')
    .action(async (options: { community: string; label?: string; tag?: string; includeUnlisted?: boolean; json?: boolean }) => {
      const created = await asOperatorErrors(() =>
        withDatabase((database, config) =>
          createCalendarFeed(
            {
              database,
              clock: systemClock,
              actor: cliActor(),
              secrets: new SecretBox(config.secrets),
              publicBaseUrl: () => publicBaseUrl(config.files.publicBaseUrl, config),
              communityId: options.community,
            },
            { label: options.label, tag: options.tag, include_unlisted: Boolean(options.includeUnlisted) },
          ),
        ),
      );
      printResult(
        { json: Boolean(options.json) },
        created,
        `Created calendar feed ${created.id}. Its URL (shown once; store it now):\n${created.webcal_url}\n${created.url}`,
      );
    });
  feed
    .command('list')
    .description("list a community's live feeds (never their URLs)")
    .requiredOption('--community <id>', 'community id')
    .option('--json', 'print JSON')
    .action(async (options: { community: string; json?: boolean }) => {
      const feeds = await asOperatorErrors(() => withDatabase((database) => listCalendarFeeds({ database }, options.community)));
      printRows({ json: Boolean(options.json) }, feeds, ['id', 'label', 'member_id', 'tag_id', 'include_unlisted', 'created_at']);
    });
  feed
    .command('revoke')
    .description('revoke a feed: its URL answers 404 from now on')
    .argument('<id>', 'the feed id')
    .option('--json', 'print JSON')
    .action(async (id: string, options: { json?: boolean }) => {
      await asOperatorErrors(() =>
        withDatabase((database) => revokeCalendarFeedById({ database, clock: systemClock, actor: cliActor() }, id)),
      );
      printResult({ json: Boolean(options.json) }, { id, revoked: true }, `Revoked calendar feed ${id}.`);
    });
}
