import type { ChatSyncJobsTable } from '../../../db/schema.js';
import { toIso } from '../../../shared/clock.js';
import type { EpochMillis } from '../../../shared/time.js';
import type { SyncProgress } from '../rules/sync-progress.js';

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
