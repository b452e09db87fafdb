import { type AdminClient, type ListRecord, type paths, unwrap } from '@community-admin/client';
import type { Page } from '../../shared/paged-table.js';

export type ApiKey = ListRecord<paths, '/admin/v0/api_keys'>;
export type Permission = ApiKey['permissions'][number];

export interface NewKey {
  label: string;
  permissions: Permission[];
  /** `24h`, `30d`, ...; absent: never expires. */
  expires_in?: string;
}

export const perPage = 20;

export async function listKeys(client: AdminClient<paths>, page: number): Promise<Page<ApiKey>> {
  return unwrap(await client.GET('/admin/v0/api_keys', { params: { query: { page, per_page: perPage } } })).data as Page<ApiKey>;
}

/**
 * The permissions the console may give: those its own session holds (a key can only be given what the
 * calling key holds), in catalogue order, as `GET /api_key/me` answers them.
 */
export async function grantable(client: AdminClient<paths>): Promise<Permission[]> {
  return unwrap(await client.GET('/admin/v0/api_key/me')).data.permissions;
}

/** Creates a key; answers its id and its secret (shown once). */
export async function createKey(client: AdminClient<paths>, input: NewKey): Promise<{ id: string; key: string }> {
  const { id, key } = unwrap(await client.POST('/admin/v0/api_keys', { body: input })).data;
  return { id, key };
}

/** A new secret for the key; the old one works until `previous_valid_until` (the API's default grace). */
export async function rotateKey(client: AdminClient<paths>, id: string): Promise<{ key: string; previous_valid_until: string }> {
  const { key, previous_valid_until } = unwrap(await client.POST('/admin/v0/api_keys/{id}/rotate', { params: { path: { id } } })).data;
  return { key, previous_valid_until };
}

export async function revokeKey(client: AdminClient<paths>, id: string): Promise<void> {
  unwrap(await client.DELETE('/admin/v0/api_keys/{id}', { params: { path: { id } } }));
}
