import type { TestApp } from '../../support/harness.js';
import { type Envelope, event, importInto, profile, uuid } from '../calendar-events/fixtures.js';

export { event, importInto, profile, uuid };

/** A calendar feed as the API answers it. */
export interface FeedRecord {
  id: string;
  label: string;
  member_id: string | null;
  tag_id: string | null;
  include_unlisted: boolean;
  created_at: string;
  revoked_at: string | null;
  url: string | null;
  webcal_url: string | null;
}

/** Rich text blocks holding one paragraph of `text`. */
export const textBlocks = (text: string) => [
  { type: 'rich_text', block_id: 'b', elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text }] }] },
];

/** POST /calendar_feeds; the created feed. */
export async function createFeed(app: TestApp, auth: { authorization: string }, body: Record<string, unknown> = {}): Promise<FeedRecord> {
  const res = await app.request({
    method: 'POST',
    url: '/admin/v0/calendar_feeds',
    headers: { ...auth, 'content-type': 'application/json' },
    payload: body,
  });
  if (res.statusCode !== 201) throw new Error(`create feed: ${res.statusCode} ${res.body}`);
  return res.json<Envelope<FeedRecord>>().data;
}

/** The path of a feed's URL (what inject requests). */
export const feedPath = (feed: { url: string | null }): string => new URL(feed.url as string).pathname;

/** GET a feed (optionally with headers). */
export function getFeed(app: TestApp, feed: { url: string | null } | string, headers: Record<string, string> = {}, remoteAddress?: string) {
  return app.request({
    method: 'GET',
    url: typeof feed === 'string' ? feed : feedPath(feed),
    headers,
    ...(remoteAddress ? { remoteAddress } : {}),
  });
}
