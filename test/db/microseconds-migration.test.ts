import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { type Database, migrateToLatest } from '../../src/db/database.js';
import { migratorOf } from '../../src/db/schema-migrator.js';
import { runImport } from '../../src/import/run-import.js';
import { createApiKey } from '../../src/modules/api-keys/api-keys.commands.js';
import { createCommunity } from '../../src/modules/communities/communities.commands.js';
import { createTestDatabase, engines, TestClock, type TestDatabase, testConfig } from '../support/harness.js';

/*
 * Migrations 007-fidelity-microseconds, 008-fidelity-event-nulls and 009-fidelity-post-nulls on data already stored: their
 * `down` gives back the stored form of before (epoch ms, instants in docs spelled by toISOString,
 * "" and [] for no value), and `up` turns that into microseconds that answer exactly what was
 * stored, in the new spelling, and nulls, on both engines.
 */

async function migrateTo(database: Database, name: string): Promise<void> {
  const { error } = await (await migratorOf(database)).migrateTo(name);
  if (error) throw error;
}

const profileId = '00000000-0000-4001-8000-000000000001';
const feedId = '00000000-0000-4002-8000-000000000001';

for (const { engine, skip } of engines) {
  describe(`migrations 007-009: instants to microseconds, event and post nulls [${engine}]`, { skip }, () => {
    let testDb: TestDatabase;
    let key: string;

    before(async () => {
      testDb = await createTestDatabase(engine);
      const clock = new TestClock(Date.parse('2026-11-21T12:00:00.123Z'));
      const community = await createCommunity({ database: testDb.database, clock }, { name: 'Old data', plan: 'enterprise' });
      key = (await createApiKey({ database: testDb.database, clock, communityId: community.id }, { label: 'test' })).key;
      await runImport(
        { database: testDb.database, clock, communityId: community.id },
        {
          profiles: [{ profile_id: profileId, email: 'a@example.org', created_at: '2025-03-11T13:06:35.552Z', chat_user_id: 'U1' }],
          feeds: [{ id: feedId, label: 'Feed', slug: 'feed', chat_channel_id: 'C1' }],
          calendar_events: [
            {
              id: 'ev0000000001',
              status: 'published',
              start_date: '2026-12-01T18:00:00.250Z',
              end_date: '2026-12-01T19:00:00Z',
              host_profile_ids: [profileId],
              tags: [{ id: 't1', created_at: '2026-01-02T03:04:05.678Z' }],
            },
          ],
          posts: [
            {
              id: 'p1',
              feed_id: feedId,
              author_profile_id: profileId,
              content_created_at: '2025-05-14T19:16:38.63Z',
              chat_message: { message_ts: '1747250195.525400' },
            },
          ],
        },
      );
      await migrateTo(testDb.database, '006-slack-chat-sync');
    });

    after(async () => {
      await testDb.drop();
    });

    it('down: the data is back in the stored form of before (epoch ms, docs spelled by toISOString)', async () => {
      const { db } = testDb.database;
      const event = await db
        .selectFrom('calendar_events')
        .select(['start_at', 'end_at', 'ends_at', 'created_at', 'doc'])
        .executeTakeFirstOrThrow();
      assert.equal(Number(event.start_at), Date.parse('2026-12-01T18:00:00.250Z'));
      assert.equal(Number(event.end_at), Date.parse('2026-12-01T19:00:00Z'));
      assert.equal(Number(event.ends_at), Date.parse('2026-12-01T19:00:00Z'));
      assert.equal(Number(event.created_at), Date.parse('2026-11-21T12:00:00.123Z'));
      const doc = JSON.parse(event.doc) as { tags: { created_at: string }[]; link: unknown; recap_chat_blocks: unknown };
      assert.deepEqual(
        doc.tags.map((t) => t.created_at),
        ['2026-01-02T03:04:05.678Z'],
      );
      // Before 008-fidelity-event-nulls, "no value" was stored as "" and [].
      assert.equal(doc.link, '');
      assert.deepEqual(doc.recap_chat_blocks, []);
      const profile = await db.selectFrom('profiles').select(['created_at', 'doc']).executeTakeFirstOrThrow();
      assert.equal(Number(profile.created_at), Date.parse('2025-03-11T13:06:35.552Z'));
      assert.equal((JSON.parse(profile.doc) as { created_at: string }).created_at, '2025-03-11T13:06:35.552Z');
      const post = await db.selectFrom('posts').select(['content_created_at', 'doc']).executeTakeFirstOrThrow();
      assert.equal(Number(post.content_created_at), Date.parse('2025-05-14T19:16:38.63Z'));
      // Before 009-fidelity-post-nulls, a post's "no value" was "" and message_ts a number.
      const postDoc = JSON.parse(post.doc) as { cover_image_url: unknown; chat_message: { message_ts: unknown; username: unknown } };
      assert.equal(postDoc.cover_image_url, '');
      assert.equal(postDoc.chat_message.username, '');
      assert.equal(postDoc.chat_message.message_ts, 1747250195.5254);
    });

    it('up: every instant answers exactly as stored, in the new spelling, and lists still split by time', async () => {
      await migrateToLatest(testDb.database);
      const app = await buildApp({ config: testConfig(), database: testDb.database, clock: new TestClock(), logger: false });
      try {
        const headers = { authorization: `Bearer ${key}` };
        const event = (await app.inject({ method: 'GET', url: '/admin/v0/calendar_events/ev0000000001', headers })).json().data;
        assert.equal(event.start_date, '2026-12-01T18:00:00.25+00:00');
        assert.equal(event.end_date, '2026-12-01T19:00:00+00:00');
        assert.equal(event.created_at, '2026-11-21T12:00:00.123+00:00');
        assert.equal(event.tags[0].created_at, '2026-01-02T03:04:05.678+00:00');
        assert.equal(event.hosts[0].created_at, '2025-03-11T13:06:35.552+00:00');
        assert.equal(event.link, null, '005: "" of before is null');
        assert.equal(event.recap_chat_blocks, null, '005: [] of before is null');
        const posts = (await app.inject({ method: 'GET', url: `/admin/v0/feeds/${feedId}/posts`, headers })).json().data;
        assert.equal(posts.records[0].content_created_at, '2025-05-14 19:16:38.63+00');
        assert.equal(posts.records[0].author.created_at, '2025-03-11 13:06:35.552+00');
        assert.equal(posts.records[0].cover_image_url, null, '009: "" of before is null');
        assert.equal(posts.records[0].chat_message.username, null, '009: "" of before is null');
        assert.equal(posts.records[0].chat_message.message_ts, '1747250195.525400', '009: the number of before is a string again');
        const upcoming = async (reference: string) =>
          (
            await app.inject({
              method: 'GET',
              url: `/admin/v0/calendar_events?time_filter=upcoming&reference_date=${encodeURIComponent(reference)}`,
              headers,
            })
          ).json().data.total_records;
        assert.equal(await upcoming('2026-12-01T19:00:00Z'), 1);
        assert.equal(await upcoming('2026-12-01T19:00:00.000001Z'), 0);
      } finally {
        await app.close();
      }
    });
  });
}
