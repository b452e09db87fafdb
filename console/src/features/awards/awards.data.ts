import { type AdminClient, type ListRecord, type paths, unwrap } from '@community-admin/client';
import type { Page } from '../../shared/paged-table.js';

export type Award = ListRecord<paths, '/admin/v0/awards'>;
export type Member = ListRecord<paths, '/admin/v0/members'>;

export interface NewAward {
  name: string;
  description: string;
  emoji: string;
}

export const perPage = 20;

export async function listAwards(client: AdminClient<paths>, page: number): Promise<Page<Award>> {
  return unwrap(await client.GET('/admin/v0/awards', { params: { query: { page, per_page: perPage } } })).data as Page<Award>;
}

export async function createAward(client: AdminClient<paths>, input: NewAward): Promise<void> {
  unwrap(
    await client.POST('/admin/v0/awards', {
      body: { name: input.name, description: input.description || null, emoji: input.emoji || null },
    }),
  );
}

/** Active members matching a name or email, for choosing a recipient (the first ten, by name). */
export async function findMembers(client: AdminClient<paths>, q: string): Promise<Page<Member>> {
  const body = unwrap(await client.GET('/admin/v0/members', { params: { query: { q, status: 'active', sort: 'name', per_page: 10 } } }));
  return body.data as Page<Member>;
}

/**
 * Gives the award to a member. Awards are held by profiles: a member linked to chat is named by its
 * profile, any other by email (the API answers 404 when no profile holds it).
 */
export async function assignAward(client: AdminClient<paths>, awardId: string, member: Member): Promise<void> {
  const recipient = member.chat_profile_id ? { profile_id: member.chat_profile_id } : { email: member.email };
  unwrap(await client.POST('/admin/v0/awards/{award_id}/assign', { params: { path: { award_id: awardId } }, body: { recipient } }));
}
