import { type AdminClient, type paths, unwrap } from '@community-admin/client';
import type { Page } from '../../shared/paged-table.js';

type Ok<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  responses: { 200: { content: { 'application/json': { data: infer D } } } };
}
  ? D
  : paths[P][M] extends { responses: { 201: { content: { 'application/json': { data: infer D } } } } }
    ? D
    : never;

export type Endpoint = Ok<'/admin/v0/webhook_endpoints', 'get'>[number];
export type EventTypeInfo = Ok<'/admin/v0/webhook_event_types', 'get'>[number];
export type EventType = EventTypeInfo['type'];
export type CreatedEndpoint = Ok<'/admin/v0/webhook_endpoints', 'post'>;
export type Delivery = Ok<'/admin/v0/webhook_endpoints/{id}/deliveries', 'get'>['records'][number];
export type Attempt = Delivery['attempt_log'][number];
export type TestResult = Ok<'/admin/v0/webhook_endpoints/{id}/test', 'post'>;
export type RedeliverFailedResult = Ok<'/admin/v0/webhook_endpoints/{id}/redeliver_failed', 'post'>;

export const perPage = 20;

const byId = (id: string) => ({ params: { path: { id } } });

/** Every endpoint (the API answers them all at once: a community has a handful). */
export async function listEndpoints(client: AdminClient<paths>): Promise<Endpoint[]> {
  return unwrap(await client.GET('/admin/v0/webhook_endpoints')).data;
}

export async function listEventTypes(client: AdminClient<paths>): Promise<EventTypeInfo[]> {
  return unwrap(await client.GET('/admin/v0/webhook_event_types')).data;
}

/** `events` null subscribes to every type, including types added later. */
export async function createEndpoint(client: AdminClient<paths>, url: string, events: EventType[] | null): Promise<CreatedEndpoint> {
  return unwrap(await client.POST('/admin/v0/webhook_endpoints', { body: { url, ...(events ? { events } : {}) } })).data;
}

export async function setEnabled(client: AdminClient<paths>, id: string, enabled: boolean): Promise<Endpoint> {
  return unwrap(await client.PATCH('/admin/v0/webhook_endpoints/{id}', { ...byId(id), body: { enabled } })).data;
}

export async function deleteEndpoint(client: AdminClient<paths>, id: string): Promise<void> {
  unwrap(await client.DELETE('/admin/v0/webhook_endpoints/{id}', byId(id)));
}

export async function sendTest(client: AdminClient<paths>, id: string): Promise<TestResult> {
  return unwrap(await client.POST('/admin/v0/webhook_endpoints/{id}/test', { ...byId(id), body: {} })).data;
}

export async function listDeliveries(client: AdminClient<paths>, id: string, failedOnly: boolean, page: number): Promise<Page<Delivery>> {
  const query = { page, per_page: perPage, ...(failedOnly ? { status: 'failed' as const } : {}) };
  return unwrap(await client.GET('/admin/v0/webhook_endpoints/{id}/deliveries', { params: { path: { id }, query } }))
    .data as Page<Delivery>;
}

export async function redeliver(client: AdminClient<paths>, deliveryId: string): Promise<void> {
  unwrap(await client.POST('/admin/v0/webhook_deliveries/{id}/redeliver', byId(deliveryId)));
}

export async function redeliverFailed(client: AdminClient<paths>, id: string, since: string): Promise<RedeliverFailedResult> {
  return unwrap(await client.POST('/admin/v0/webhook_endpoints/{id}/redeliver_failed', { ...byId(id), body: { since } })).data;
}
