import { type AdminClient, type ListRecord, type paths, unwrap } from '@community-admin/client';
import type { Page } from '../../shared/paged-table.js';

export type Member = ListRecord<paths, '/admin/v0/members'>;
export type Group = ListRecord<paths, '/admin/v0/groups'>;
export type MemberSort = 'name' | '-name' | 'joined_at' | '-joined_at';
export type MemberStatus = '' | 'active' | 'deactivated';

export interface MemberFilters {
  q: string;
  status: MemberStatus;
  sort: MemberSort;
  page: number;
}

export const perPage = 20;

export async function listMembers(client: AdminClient<paths>, filters: MemberFilters): Promise<Page<Member>> {
  const q = filters.q.trim();
  const body = unwrap(
    await client.GET('/admin/v0/members', {
      params: {
        query: {
          ...(q ? { q } : {}),
          ...(filters.status ? { status: filters.status } : {}),
          sort: filters.sort,
          page: filters.page,
          per_page: perPage,
        },
      },
    }),
  );
  return body.data as Page<Member>;
}

/** Adds a member (or updates the one holding the email); answers the server's sentence. */
export async function addMember(client: AdminClient<paths>, input: { email: string; full_name: string }): Promise<string> {
  return unwrap(await client.POST('/admin/v0/members', { body: input })).message;
}

export async function deactivateMember(client: AdminClient<paths>, id: string): Promise<void> {
  unwrap(await client.POST('/admin/v0/members/{member_id}/deactivate', { params: { path: { member_id: id } } }));
}

/** Every group (a community has few), by name. */
export async function listGroups(client: AdminClient<paths>): Promise<Group[]> {
  const groups: Group[] = [];
  for await (const group of client.paginate('/admin/v0/groups', { params: { query: { per_page: 50 } } })) groups.push(group);
  return groups;
}

/** Adds the member's chat profile to a group; answers the server's sentence when it already was a member. */
export async function addToGroup(client: AdminClient<paths>, groupId: string, profileId: string): Promise<string | undefined> {
  return unwrap(
    await client.POST('/admin/v0/groups/{group_id}/members', {
      params: { path: { group_id: groupId } },
      body: { user: { profile_id: profileId } },
    }),
  ).message;
}
