// Builders for feeds, posts and chat blocks, so that tests read like the data they describe.
import { runImport } from '../../src/import/run-import.js';
import type { TestApp } from './harness.js';

export type Json = Record<string, unknown>;
export type Auth = { authorization: string };

const hex = (n: number) => n.toString(16).padStart(12, '0');

/** A deterministic feed id (UUID v4 shape). */
export const feedId = (n: number) => `f0000000-0000-4000-8000-${hex(n)}`;
/** A deterministic profile id (UUID v4 shape). */
export const profileId = (n: number) => `a0000000-0000-4000-8000-${hex(n)}`;
/** A post id that sorts the same way as a string on both engines. */
export const postId = (n: number) => `post-${String(n).padStart(4, '0')}`;

/** A profile import record with a chat identity `U<n>`. */
export function profile(n: number, extra: Json = {}): Json {
  return {
    profile_id: profileId(n),
    email: `person${n}@example.com`,
    first_name: `First${n}`,
    last_name: `Last${n}`,
    chat_user_id: `U${n}`,
    ...extra,
  };
}

/** A feed import record bound to chat channel `C<n>`. */
export function feed(n: number, extra: Json = {}): Json {
  return { id: feedId(n), label: `Feed ${n}`, slug: `feed-${n}`, chat_channel_id: `C${n}`, chat_channel_name: `channel-${n}`, ...extra };
}

/** A post import record of feed `feedNumber` by profile 1. */
export function post(n: number, feedNumber: number, extra: Json = {}): Json {
  return { id: postId(n), feed_id: feedId(feedNumber), author_profile_id: profileId(1), title: `Post ${n}`, ...extra };
}

export const text = (value: string, style?: Json): Json => (style ? { type: 'text', text: value, style } : { type: 'text', text: value });
export const section = (...elements: Json[]): Json => ({ type: 'rich_text_section', elements });
export const list = (style: 'bullet' | 'ordered', ...items: Json[]): Json => ({ type: 'rich_text_list', style, elements: items });
export const block = (...elements: Json[]): Json => ({ type: 'rich_text', block_id: 'b1', elements });
export const user = (id: string): Json => ({ type: 'user', user_id: id });
export const channel = (id: string): Json => ({ type: 'channel', channel_id: id });
export const link = (url: string, label?: string): Json => (label ? { type: 'link', url, text: label } : { type: 'link', url });
export const emoji = (name: string, unicode?: string): Json => (unicode ? { type: 'emoji', name, unicode } : { type: 'emoji', name });

/** The chat_message a post answers when its record gives none (or gives null for every field). */
export const emptyChatMessage: Json = {
  id: '',
  message_ts: null,
  blocks: [],
  markdown: '',
  permalink: '',
  parent_chat_message_id: null,
  username: null,
  icon: null,
};

/** Loads an import document into the community through the real import. */
export async function importInto(app: TestApp, communityId: string, document: Json): Promise<Record<string, number>> {
  return runImport({ database: app.database, clock: app.clock, communityId }, document);
}

/** The error message of an import that must fail. */
export async function importError(app: TestApp, communityId: string, document: Json): Promise<string> {
  try {
    await importInto(app, communityId, document);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  throw new Error('the import was expected to fail');
}

/** The data of a paged list (`GET /feeds`, `GET /feeds/{feed}/posts`), its records as JSON. */
export interface ListPage {
  page: number;
  per_page: number;
  count: number;
  total_records: number;
  total_pages: number;
  has_next: boolean;
  records: Json[];
}

/** GET /feeds/{feed}/posts?query: status and parsed body. */
export async function listPosts(
  app: TestApp,
  auth: Auth,
  feed: string,
  query = '',
): Promise<{ status: number; body: { success: boolean; data: ListPage; error?: { code: string; message: string } } }> {
  const res = await app.request({ method: 'GET', url: `/admin/v0/feeds/${feed}/posts${query ? `?${query}` : ''}`, headers: auth });
  return { status: res.statusCode, body: res.json() };
}

/** GET /feeds/{feed}: status and parsed body. */
export async function getFeed(
  app: TestApp,
  auth: Auth,
  feed: string,
): Promise<{ status: number; body: { success: boolean; data: Json; error?: { code: string; message: string } } }> {
  const res = await app.request({ method: 'GET', url: `/admin/v0/feeds/${feed}`, headers: auth });
  return { status: res.statusCode, body: res.json() };
}

/** Ids of the records of a page. */
export const idsOf = (page: ListPage): string[] => page.records.map((record) => String(record.id));

/** Every page of a list, walked with has_next, as one list of ids. */
export async function walkPages(app: TestApp, auth: Auth, feed: string, query: string, perPage: number): Promise<string[]> {
  const seen: string[] = [];
  for (let page = 0; page < 1000; page++) {
    const { status, body } = await listPosts(app, auth, feed, `${query}&page=${page}&per_page=${perPage}`);
    if (status !== 200) throw new Error(`page ${page}: ${status}`);
    seen.push(...idsOf(body.data));
    if (!body.data.has_next) return seen;
  }
  throw new Error('has_next never became false');
}
