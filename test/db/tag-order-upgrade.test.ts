// Migration 012 gives every tag row its event's updated_at, on databases that already hold events,
// so that a create naming a tag takes the record of the most recently updated event carrying it
// without reading every such event.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { buildApp } from '../../src/app.js';
import { migrateToLatest } from '../../src/db/database.js';
import { migratorOf } from '../../src/db/schema-migrator.js';
import { createApiKey } from '../../src/modules/api-keys/api-keys.commands.js';
import { createCommunity } from '../../src/modules/communities/communities.commands.js';
import { systemClock } from '../../src/shared/clock.js';
import { runCli } from '../support/cli.js';
import { createTestDatabase, engines, type TestDatabase, testConfig } from '../support/harness.js';

for (const { engine, skip } of engines) {
  describe(`the tag rows' event order on a database that already holds events [${engine}]`, { skip }, () => {
    let testDb: TestDatabase;
    let communityId = '';

    before(async () => {
      testDb = await createTestDatabase(engine);
      communityId = (await createCommunity({ database: testDb.database, clock: systemClock }, { name: 'Upgrade', plan: 'enterprise' })).id;
      const seeded = await runCli(
        ['seed', '--community', communityId, '--events', '400', '--posts', '0', '--profiles', '20', '--json'],
        testDb.env,
      );
      assert.equal(seeded.code, 0, seeded.stderr);
      // Back to the schema before the column, the events and their tag rows staying.
      const { error } = await (await migratorOf(testDb.database)).migrateTo('011-event-slug-index');
      assert.equal(error, undefined);
    });
    after(async () => testDb?.drop());

    it("fills every tag row with its event's updated_at, and a create naming a tag takes the latest event's record", async () => {
      // Later migrations run too; this one first.
      assert.equal((await migrateToLatest(testDb.database))[0], '012-event-tag-order');
      const { rows } = await sql<{ n: number; same: number }>`
        select count(*) as n, sum(case when t.event_updated_at = e.updated_at then 1 else 0 end) as same
        from calendar_event_tags t join calendar_events e on e.community_id = t.community_id and e.id = t.event_id`.execute(
        testDb.database.db,
      );
      assert.ok(Number(rows[0]?.n) > 100, `${rows[0]?.n} tag rows`);
      assert.equal(Number(rows[0]?.same), Number(rows[0]?.n));

      const { rows: latest } = await sql<{ tag_id: string; doc: string }>`
        select t.tag_id, e.doc from calendar_event_tags t join calendar_events e on e.community_id = t.community_id and e.id = t.event_id
        order by e.updated_at desc, e.id desc limit 1`.execute(testDb.database.db);
      const [newest] = latest;
      assert.ok(newest);
      const expected = (JSON.parse(newest.doc) as { tags: { id: string; label: string }[] }).tags.find((tag) => tag.id === newest.tag_id);
      const app = await buildApp({ config: testConfig(), database: testDb.database, clock: systemClock });
      try {
        const key = await createApiKey({ database: testDb.database, clock: systemClock, communityId }, { label: 'upgrade' });
        const created = await app.inject({
          method: 'POST',
          url: '/admin/v0/calendar_events',
          headers: { authorization: `Bearer ${key.key}` },
          payload: { title: 'After the upgrade', start_date: '2099-01-01T10:00:00Z', tags: [newest.tag_id] },
        });
        assert.equal(created.statusCode, 201, created.body);
        assert.equal(created.json<{ data: { tags: { label: string }[] } }>().data.tags[0]?.label, expected?.label);
      } finally {
        await app.close();
      }
    });
  });
}
