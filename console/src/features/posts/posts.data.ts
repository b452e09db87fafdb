import { type AdminClient, type ListRecord, type paths, unwrap } from '@community-admin/client';
import type { Page } from '../../shared/paged-table.js';

export type Feed = ListRecord<paths, '/admin/v0/feeds'>;
export type Post = ListRecord<paths, '/admin/v0/feeds/{feed_id}/posts'>;
export type Hit = ListRecord<paths, '/admin/v0/search'>;

export const perPage = 20;

/** Every feed (a community has few). */
export async function listFeeds(client: AdminClient<paths>): Promise<Feed[]> {
  const feeds: Feed[] = [];
  for await (const feed of client.paginate('/admin/v0/feeds')) feeds.push(feed);
  return feeds;
}

/** A page of a feed's posts, newest first; `home` is the Home feed. */
export async function listPosts(client: AdminClient<paths>, feedId: string, page: number): Promise<Page<Post>> {
  const body = unwrap(
    await client.GET('/admin/v0/feeds/{feed_id}/posts', {
      params: { path: { feed_id: feedId }, query: { page, per_page: perPage, sort: 'newest' } },
    }),
  );
  return body.data as Page<Post>;
}

export async function searchPosts(client: AdminClient<paths>, q: string, page: number): Promise<Page<Hit>> {
  const body = unwrap(await client.GET('/admin/v0/search', { params: { query: { q, page, per_page: perPage } } }));
  return body.data as Page<Hit>;
}
