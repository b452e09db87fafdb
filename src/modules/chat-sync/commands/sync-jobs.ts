import { ChatReadError } from '../../../chat/slack-reader.js';
import type { Database } from '../../../db/database.js';
import type { ChatSyncJobsTable } from '../../../db/schema.js';
import { ApiError, notFound } from '../../../errors.js';
import { type Clock, toIso } from '../../../shared/clock.js';
import { Refused } from '../../../shared/failures.js';
import { newUuid } from '../../../shared/ids.js';
import type { EpochMillis } from '../../../shared/time.js';
import { hasBotConnection } from '../queries/connections.js';
import { insertJobUnlessActive, selectActiveJob, selectJob } from '../queries/jobs.js';
import { saveSyncStatus } from '../queries/status.js';
import { type BackfillDeps, type BackfillSummary, runBackfill } from './backfill.js';

/*
 * Backfills as jobs the server runs (`POST /admin/v0/chat/sync_jobs`, docs/chat.md "Sync jobs and
 * status"), and the one way a backfill is run and recorded, by the CLI's `chat sync` and by a job:
 * both call runRecordedBackfill, so they cannot disagree on what a backfill does or reports.
 */

/** A backfill's counts as `chat sync --json` prints them (without the ids the job names already). */
export type SyncProgress = Omit<BackfillSummary, 'community_id' | 'team_id'>;

export interface ChatSyncJobView {
  id: string;
  state: ChatSyncJobsTable['state'];
  since: string | null;
  progress: SyncProgress;
  error: string | null;
  attempts: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export const emptyProgress = (): SyncProgress => ({
  resumed: false,
  users: { read: 0, changed: 0 },
  channels: { read: 0, changed: 0 },
  messages: { read: 0, posts_created: 0, posts_updated: 0, skipped: 0 },
  rate_limit_waits: 0,
  seconds: 0,
});

export const progressOf = ({ community_id: _c, team_id: _t, ...progress }: BackfillSummary): SyncProgress => progress;

const iso = (value: number | null): string | null => (value === null ? null : toIso(Number(value) as EpochMillis));

export function jobView(row: ChatSyncJobsTable): ChatSyncJobView {
  return {
    id: row.id,
    state: row.state,
    since: iso(row.since),
    progress: JSON.parse(row.progress) as SyncProgress,
    error: row.error,
    attempts: Number(row.attempts),
    created_at: toIso(Number(row.created_at) as EpochMillis),
    started_at: iso(row.started_at),
    finished_at: iso(row.finished_at),
  };
}

/**
 * Queues a backfill of the community (from `since` on, as `chat sync --since`), unless one is
 * queued or running: then 409 naming it. Needs a bot connection (`chat connect --bot-token`).
 */
export async function startSyncJob(
  deps: { database: Database; clock: Clock },
  communityId: string,
  since: EpochMillis | null,
): Promise<ChatSyncJobView> {
  const { db } = deps.database;
  if (!(await hasBotConnection(db, communityId))) throw new ApiError('chat_bot_not_connected');
  // A job that ends between the refused insert and the read lets the next round insert.
  for (let round = 0; round < 3; round++) {
    const now = deps.clock.now();
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

export async function getSyncJob(deps: { database: Database }, communityId: string, id: string): Promise<ChatSyncJobView> {
  const row = await selectJob(deps.database.db, communityId, id);
  if (!row) throw notFound('Chat sync job');
  return jobView(row);
}

/** Thrown by a run's onPage to leave it unfinished (not a failure: nothing is recorded). */
export class BackfillInterrupted extends Error {}

/** Slack's codes that mean the bot token itself is refused. */
const tokenRefused = new Set(['invalid_auth', 'not_authed', 'token_revoked', 'token_expired', 'account_inactive']);

/** The sentence a failed backfill is recorded with: Slack's method and code, or the refusal; never a token. */
export function backfillFailure(error: unknown): string {
  if (error instanceof ChatReadError) return `Slack answered ${error.method} with ${error.code}`;
  if (error instanceof Refused) return error.message;
  return error instanceof Error ? error.message.slice(0, 500) : String(error);
}

/**
 * Runs a backfill (runBackfill) and records how it ended in the community's status (last sync,
 * and the bot token refused when Slack said so): the CLI's `chat sync` and the server's jobs both
 * run this. A failure is recorded and thrown again.
 */
export async function runRecordedBackfill(
  deps: BackfillDeps,
  communityId: string,
  options: { since?: EpochMillis },
  jobId: string | null,
): Promise<BackfillSummary> {
  const { db } = deps.database;
  try {
    const summary = await runBackfill({ ...deps, communityId }, options);
    await saveSyncStatus(db, communityId, {
      last_sync_at: deps.clock.now(),
      last_sync_result: 'succeeded',
      last_sync_error: null,
      last_sync_job_id: jobId,
    });
    return summary;
  } catch (error) {
    if (error instanceof BackfillInterrupted) throw error;
    const now = deps.clock.now();
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
