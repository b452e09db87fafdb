import { type AdminClient, type paths, unwrap } from '@community-admin/client';

type Data<P extends keyof paths, M extends keyof paths[P], S extends number> = paths[P][M] extends {
  responses: { [K in S]: { content: { 'application/json': { data: infer D } } } };
}
  ? D
  : never;

export type ChatStatus = Data<'/admin/v0/chat/status', 'get', 200>;
export type SyncJob = Data<'/admin/v0/chat/sync_jobs/{id}', 'get', 200>;
export type TokenState = ChatStatus['bot_token'];

/** How often a running backfill is asked for its progress. */
export const pollMs = 1000;

export const jobEnded = (job: SyncJob): boolean => job.state === 'succeeded' || job.state === 'failed';

/** The connection as stored; `check` asks Slack now (auth.test, the bound channels) and stores its answer. */
export async function getStatus(client: AdminClient<paths>, check = false): Promise<ChatStatus> {
  return unwrap(await client.GET('/admin/v0/chat/status', { params: { query: { check } } })).data;
}

/** Starts a backfill (the whole history, or from a date); the server runs it as a job. */
export async function startBackfill(client: AdminClient<paths>, since: string | null): Promise<SyncJob> {
  return unwrap(await client.POST('/admin/v0/chat/sync_jobs', { body: since ? { since } : {} })).data;
}

export async function getJob(client: AdminClient<paths>, id: string): Promise<SyncJob> {
  return unwrap(await client.GET('/admin/v0/chat/sync_jobs/{id}', { params: { path: { id } } })).data;
}
