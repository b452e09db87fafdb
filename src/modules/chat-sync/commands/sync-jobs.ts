import { ChatReadError } from '../../../chat/slack-reader.js';
import type { ChatSyncJobsTable } from '../../../db/schema.js';
import { ApiError } from '../../../errors.js';
import { newUuid } from '../../../shared/ids.js';
import type { EpochMillis } from '../../../shared/time.js';
import type { CommandContext } from '../../../write-path/command-context.js';
import { hasBotConnection } from '../queries/connections.js';
import { insertJobUnlessActive, selectActiveJob } from '../queries/jobs.js';
import { saveSyncStatus } from '../queries/status.js';
import { type ChatSyncJobView, jobView } from '../records/sync-jobs.js';
import { backfillFailure } from '../rules/backfill-failure.js';
import { emptyProgress } from '../rules/sync-progress.js';
import { type BackfillContext, type BackfillInput, type BackfillSummary, runBackfill } from './backfill.js';

/*
 * Backfills as jobs the server runs (`POST /admin/v0/chat/sync_jobs`, docs/chat.md "Sync jobs and
 * status"), and the one way a backfill is run and recorded, by the CLI's `chat sync` and by a job:
 * both call runRecordedBackfill, so they cannot disagree on what a backfill does or reports.
 */

/**
 * Queues a backfill of the community (from `since` on, as `chat sync --since`), unless one is
 * queued or running: then 409 naming it. Needs a bot connection (`chat connect --bot-token`).
 */
export async function startSyncJob(ctx: CommandContext, { since }: { since: EpochMillis | null }): Promise<ChatSyncJobView> {
  const { communityId } = ctx;
  const { db } = ctx.database;
  if (!(await hasBotConnection(db, communityId))) throw new ApiError('chat_bot_not_connected');
  // A job that ends between the refused insert and the read lets the next round insert.
  for (let round = 0; round < 3; round++) {
    const now = ctx.clock.now();
    const row: ChatSyncJobsTable = {
      id: newUuid(),
      community_id: communityId,
      state: 'queued',
      since,
      progress: JSON.stringify(emptyProgress()),
      error: null,
      attempts: 0,
      lease_until: 0 as EpochMillis,
      created_at: now,
      started_at: null,
      finished_at: null,
      updated_at: now,
    };
    if (await insertJobUnlessActive(db, row)) return jobView(row);
    const active = await selectActiveJob(db, communityId);
    if (active)
      throw new ApiError('chat_sync_job_running', `A backfill of this community is already ${active.state}: job ${active.id}.`, {
        hint: `Watch it with GET /admin/v0/chat/sync_jobs/${active.id}; start another once it has ended.`,
      });
  }
  throw new ApiError('chat_sync_job_running');
}

/** Thrown by a run's onPage to leave it unfinished (not a failure: nothing is recorded). */
export class BackfillInterrupted extends Error {}

/** Slack's codes that mean the bot token itself is refused. */
const tokenRefused = new Set(['invalid_auth', 'not_authed', 'token_revoked', 'token_expired', 'account_inactive']);

/**
 * Runs a backfill (runBackfill) and records how it ended in the community's status (last sync,
 * and the bot token refused when Slack said so): the CLI's `chat sync` and the server's jobs both
 * run this. A failure is recorded and thrown again.
 */
export async function runRecordedBackfill(
  ctx: BackfillContext,
  { jobId, ...options }: BackfillInput & { jobId: string | null },
): Promise<BackfillSummary> {
  const { communityId } = ctx;
  const { db } = ctx.database;
  try {
    const summary = await runBackfill(ctx, options);
    await saveSyncStatus(db, communityId, {
      last_sync_at: ctx.clock.now(),
      last_sync_result: 'succeeded',
      last_sync_error: null,
      last_sync_job_id: jobId,
    });
    return summary;
  } catch (error) {
    if (error instanceof BackfillInterrupted) throw error;
    const now = ctx.clock.now();
    await saveSyncStatus(db, communityId, {
      last_sync_at: now,
      last_sync_result: 'failed',
      last_sync_error: backfillFailure(error),
      last_sync_job_id: jobId,
      ...(error instanceof ChatReadError && tokenRefused.has(error.code) ? { bot_token_checked_at: now, bot_token_error: error.code } : {}),
    }).catch(() => {});
    throw error;
  }
}
