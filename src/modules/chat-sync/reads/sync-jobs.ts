import type { Database } from '../../../db/database.js';
import { notFound } from '../../../errors.js';
import { selectJob } from '../queries/jobs.js';
import { type ChatSyncJobView, jobView } from '../records/sync-jobs.js';

/** A job of the community, as GET /chat/sync_jobs/{id} answers it (404 when the community has none of that id). */
export async function getSyncJob(deps: { database: Database }, communityId: string, id: string): Promise<ChatSyncJobView> {
  const row = await selectJob(deps.database.db, communityId, id);
  if (!row) throw notFound('Chat sync job');
  return jobView(row);
}
