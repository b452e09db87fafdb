import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { TSchema } from '@sinclair/typebox';
import fastJson from 'fast-json-stringify';
import { runSeed, seedSizes, todayUtc } from '../../src/cli/seed/run-seed.js';
import { CalendarEventSchema } from '../../src/modules/calendar-events/schemas/event.js';
import { PostSchema } from '../../src/modules/posts/posts.schemas.js';
import { describeEachEngine } from '../support/harness.js';

// Records are answered as JSON text spliced from stored and pre-serialised parts, not built as
// objects and serialised (docs/performance.md, "Spliced JSON"). The full response schema stays the
// authority: its serializer throws on a missing required field and drops a field it does not know,
// so a record that reads back through it unchanged is exactly what the schema would have produced.
// The seeded "small" community has hosts, speakers, mentions, links, emoji, tags and feeds.

type Json = Record<string, unknown>;
type Page = { success: true; data: { records: Json[]; has_next: boolean; total_records: number } };

function assertSchemaRoundTrip(schema: TSchema, record: Json, label: string): void {
  const serialize = fastJson(schema);
  let again: string;
  try {
    again = serialize(record);
  } catch (error) {
    assert.fail(`${label}: the schema serializer refuses the record: ${(error as Error).message}`);
  }
  assert.deepEqual(JSON.parse(again), record, `${label}: the record differs from its schema serialisation`);
}

describeEachEngine('spliced records read back through their full schema unchanged', (ctx) => {
  let auth: { authorization: string };

  before(async () => {
    const community = await ctx().community();
    auth = community.auth;
    const counts = { ...seedSizes.small, posts: 120, events: 120 };
    await runSeed(ctx().database, ctx().clock, { communityId: community.id, seed: 'spliced', anchor: todayUtc(ctx().clock.now()), counts });
  });

  const get = async <T>(url: string): Promise<T> => {
    const res = await ctx().request({ method: 'GET', url, headers: auth });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<T>();
  };

  async function allPages(path: string): Promise<Json[]> {
    const records: Json[] = [];
    for (let page = 0; ; page++) {
      const { data } = await get<Page>(`${path}${path.includes('?') ? '&' : '?'}per_page=50&page=${page}`);
      records.push(...data.records);
      if (!data.has_next) return records;
    }
  }

  it('every calendar event, listed and fetched one by one, is what CalendarEventSchema serialises', async () => {
    const statuses = ['published', 'draft', 'needs_approval'];
    const listed = (
      await Promise.all(statuses.map((status) => allPages(`/admin/v0/calendar_events?time_filter=all&status=${status}`)))
    ).flat();
    assert.equal(listed.length, 120);
    // The seed must exercise every spliced part, or this test would prove little.
    assert.ok(listed.some((e) => (e.hosts as unknown[]).length > 0 && (e.speakers as unknown[]).length > 0));
    assert.ok(
      listed.some((e) => (e.description_chat_blocks_references as { mentioned_chat_users: unknown[] }).mentioned_chat_users.length > 0),
    );
    assert.ok(listed.some((e) => (e.tags as unknown[]).length > 0 && (e.published_to as unknown[]).length > 0));
    assert.ok(listed.some((e) => e.end_date === '') || listed.every((e) => e.end_date !== ''));
    for (const record of listed) {
      assertSchemaRoundTrip(CalendarEventSchema, record, `listed event ${String(record.id)}`);
      const fetched = await get<{ success: true; data: Json }>(`/admin/v0/calendar_events/${String(record.id)}`);
      assert.deepEqual(fetched.data, record, `event ${String(record.id)}: get and list disagree`);
    }
  });

  it('every post of Home and of each feed, in every sort, is what PostSchema serialises', async () => {
    const home = await allPages('/admin/v0/feeds/home/posts');
    assert.ok(home.length > 0);
    assert.ok(home.some((p) => (p.references as { urls: unknown[] }).urls.length > 0));
    const feedIds = [...new Set(home.map((p) => String(p.feed_id)))];
    const seen = new Map<string, Json>();
    for (const path of [
      '/admin/v0/feeds/home/posts?sort=oldest',
      '/admin/v0/feeds/home/posts?sort=most-recent-activity',
      ...feedIds.map((id) => `/admin/v0/feeds/${id}/posts`),
    ]) {
      for (const record of await allPages(path)) {
        assertSchemaRoundTrip(PostSchema, record, `post ${String(record.id)} of ${path}`);
        const before = seen.get(String(record.id));
        if (before) assert.deepEqual(record, before, `post ${String(record.id)} differs between lists`);
        seen.set(String(record.id), record);
      }
    }
    for (const record of home) assertSchemaRoundTrip(PostSchema, record, `post ${String(record.id)} of Home`);
  });
});
