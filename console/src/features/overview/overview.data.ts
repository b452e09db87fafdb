import { type AdminClient, type ListRecord, type paths, unwrap } from '@community-admin/client';

type Client = AdminClient<paths>;
export type ChatStatus = Awaited<ReturnType<typeof chatStatus>>;
export type Endpoint = Awaited<ReturnType<typeof webhookEndpoints>>[number];
export type Activity = ListRecord<paths, '/admin/v0/activities'>;

/** Each count is the total of its list, read with one record a page. */
export const counts = {
  members: async (client: Client) =>
    unwrap(await client.GET('/admin/v0/members', { params: { query: { per_page: 1 } } })).data.total_records,
  events: async (client: Client) =>
    unwrap(
      await client.GET('/admin/v0/calendar_events', {
        params: { query: { time_filter: 'upcoming', status: 'published', per_page: 1 } },
      }),
    ).data.total_records,
  feeds: async (client: Client) => unwrap(await client.GET('/admin/v0/feeds', { params: { query: { per_page: 1 } } })).data.total_records,
  files: async (client: Client) => unwrap(await client.GET('/admin/v0/files', { params: { query: { per_page: 1 } } })).data.total_records,
} as const;

export async function chatStatus(client: Client) {
  return unwrap(await client.GET('/admin/v0/chat/status')).data;
}

export async function webhookEndpoints(client: Client) {
  return unwrap(await client.GET('/admin/v0/webhook_endpoints')).data;
}

export async function latestActivity(client: Client): Promise<Activity[]> {
  return unwrap(await client.GET('/admin/v0/activities', { params: { query: { per_page: 5 } } })).data.records;
}
