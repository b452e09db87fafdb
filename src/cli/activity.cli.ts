import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import type { Command } from 'commander';
import { UserInputError } from '../errors.js';
import { activityExportText } from '../modules/activities/activities.export.js';
import { selectActivityPage } from '../modules/activities/activities.queries.js';
import { activityRecord } from '../modules/activities/activities.records.js';
import { activityFilter } from '../modules/activities/reads/pages.js';
import { verifyChain } from '../modules/activities/reads/verify-chain.js';
import { requireCommunity } from '../modules/communities/communities.reads.js';
import { readSnapshot } from '../write-path/read-snapshot.js';
import { withDatabase } from './context.js';
import { asOperatorErrors, formatTable, printResult } from './output.js';

interface FilterOptions {
  community: string;
  action?: string;
  actorType?: string;
  actorId?: string;
  targetType?: string;
  targetId?: string;
  since?: string;
  until?: string;
}

/** The option of each filter field, as the CLI's messages name it. */
const optionNames: Record<string, string> = {
  action: '--action',
  actor_type: '--actor-type',
  actor_id: '--actor-id',
  target_type: '--target-type',
  target_id: '--target-id',
  since: '--since',
  until: '--until',
};

const filterOf = (options: FilterOptions) =>
  activityFilter(
    {
      action: options.action,
      actor_type: options.actorType,
      actor_id: options.actorId,
      target_type: options.targetType,
      target_id: options.targetId,
      since: options.since,
      until: options.until,
    },
    (field) => optionNames[field] ?? field,
  );

async function write(stream: Writable, text: string): Promise<void> {
  if (!stream.write(text)) await once(stream, 'drain');
}

/** `activity list|export|verify` (docs/activity.md). */
export function registerActivityCommands(program: Command): void {
  const activity = program.command('activity').description("read, export and verify a community's activity log");
  const withFilters = (command: Command, all = true) => {
    command.requiredOption('--community <id>', 'community id');
    if (all)
      command
        .option('--action <action>', 'one action, or a family such as calendar_event.*')
        .option('--actor-type <type>', 'api_key, console, cli, chat_sync or system')
        .option('--actor-id <id>', 'the actor id (an API key id)')
        .option('--target-type <type>', 'the kind of object changed (calendar_event, member, api_key, ...)')
        .option('--target-id <id>', 'the object changed');
    return command
      .option('--since <time>', 'records at or after this instant (ISO 8601)')
      .option('--until <time>', 'records before this instant');
  };

  withFilters(activity.command('list').description('the newest records first'))
    .option('--limit <n>', 'how many records (1 to 1000)', '50')
    .option('--json', 'print JSON')
    .action(async (options: FilterOptions & { limit: string; json?: boolean }) => {
      const limit = Number(options.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UserInputError('--limit must be a whole number from 1 to 1000.');
      const records = await asOperatorErrors(() =>
        withDatabase(async (database) => {
          await requireCommunity({ database }, options.community);
          return (await selectActivityPage(database.db, options.community, filterOf(options), limit, 0)).map(activityRecord);
        }),
      );
      const rows = records.map((r) => ({
        occurred_at: r.occurred_at,
        action: r.action,
        actor: `${r.actor.type}${r.actor.label ? ` ${r.actor.label}` : ''}${r.actor.id ? ` (${r.actor.id})` : ''}`,
        target: `${r.target.type}${r.target.id ? ` ${r.target.id}` : ''}${r.target.name ? ` "${r.target.name}"` : ''}`,
        ip: r.context?.ip ?? '',
      }));
      printResult({ json: Boolean(options.json) }, records, formatTable(rows, ['occurred_at', 'action', 'actor', 'target', 'ip']));
    });

  withFilters(
    activity.command('export').description('every record, oldest first, as JSON Lines or CSV (stdout or --out); progress on stderr'),
    false,
  )
    .requiredOption('--format <format>', 'jsonl or csv')
    .option('--out <file>', 'file to write (replaced only once the export is complete)')
    .action(async (options: FilterOptions & { format: string; out?: string }) => {
      if (options.format !== 'jsonl' && options.format !== 'csv') throw new UserInputError('--format must be jsonl or csv.');
      const format = options.format;
      const progress = (written: number) => process.stderr.write(`activity export: ${written}\n`);
      await withDatabase(async (database) => {
        const range = await asOperatorErrors(async () => {
          await requireCommunity({ database }, options.community);
          return filterOf(options);
        });
        const run = (stream: Writable) =>
          readSnapshot(database, async (db) => {
            for await (const text of activityExportText(db, options.community, format, range, progress)) await write(stream, text);
          });
        if (options.out === undefined) return run(process.stdout);
        // A partial file must never pass for an export: write beside it, then rename.
        const partial = `${options.out}.partial`;
        const file = createWriteStream(partial, { flags: 'w' });
        await new Promise<void>((resolve, reject) => {
          file.once('open', () => resolve());
          file.once('error', (error) => reject(new UserInputError(`Cannot write ${options.out}: ${error.message}`)));
        });
        try {
          await run(file);
          await new Promise<void>((resolve, reject) => {
            file.once('error', reject);
            file.end(() => resolve());
          });
          await rename(partial, options.out);
        } catch (error) {
          file.destroy();
          await rm(partial, { force: true });
          throw error;
        }
      });
    });

  activity
    .command('verify')
    .description('recompute the hash chain; exit 1 naming the first record that does not match')
    .requiredOption('--community <id>', 'community id')
    .option('--json', 'print JSON')
    .action(async (options: { community: string; json?: boolean }) => {
      const verdict = await asOperatorErrors(() =>
        withDatabase(async (database) => {
          await requireCommunity({ database }, options.community);
          // One snapshot: records a running server appends meanwhile are not half seen.
          return readSnapshot(database, (db) => verifyChain(db, options.community));
        }),
      );
      const problem = verdict.problem;
      const text = problem
        ? `The activity log of community ${verdict.community_id} does not verify: ${
            problem.id === null
              ? `seq ${problem.seq}`
              : `record ${problem.id} (seq ${problem.seq}, ${problem.action} at ${problem.occurred_at})`
          }: ${problem.reason}.`
        : `The activity log of community ${verdict.community_id} verifies: ${verdict.records} records${
            verdict.records > 0 ? ` (seq ${verdict.first_seq} to ${verdict.last_seq})` : ''
          }; head hash ${verdict.head_hash ?? '(none)'}.`;
      printResult({ json: Boolean(options.json) }, verdict, text);
      if (!verdict.ok) process.exitCode = 1;
    });
}
