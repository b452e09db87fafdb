// Migration 013 indexes the posts a database already holds; `community-admin search` answers as the
// API does and `search reindex` rebuilds a community's index to the same answers; on both engines.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { buildApp } from '../../../src/app.js';
import { migrateToLatest } from '../../../src/db/database.js';
import { migratorOf } from '../../../src/db/schema-migrator.js';
import { createApiKey } from '../../../src/modules/api-keys/api-keys.commands.js';
import { createCommunity } from '../../../src/modules/communities/communities.commands.js';
import { systemClock } from '../../../src/shared/clock.js';
import { parseJsonOutput, runCli } from '../../support/cli.js';
import { createTestDatabase, engines, type TestDatabase, testConfig } from '../../support/harness.js';

// The phrases with common words are read through word pairs once the community is reindexed, and
// without them before (migration 016 lists the communities indexed before pairs): the same answers.
const queries = ['the', 'update', 'launch*', '"community update"', 'about -the', '"the slides"', '"at the end of this"', '"end of th"*'];

for (const { engine, skip } of engines) {
  describe(`search on a database that already holds posts, and its commands [${engine}]`, { skip }, () => {
    let testDb: TestDatabase;
    let communityId = '';
    let app: Awaited<ReturnType<typeof buildApp>>;
    let auth = { authorization: '' };

    before(async () => {
      testDb = await createTestDatabase(engine);
      communityId = (await createCommunity({ database: testDb.database, clock: systemClock }, { name: 'Upgrade', plan: 'enterprise' })).id;
      const seeded = await runCli(['seed', '--community', communityId, '--events', '0', '--posts', '400', '--profiles', '40'], testDb.env);
      assert.equal(seeded.code, 0, seeded.stderr);
      // The key is made on the current schema (its write records an activity); it outlives the way down.
      auth = {
        authorization: `Bearer ${(await createApiKey({ database: testDb.database, clock: systemClock, communityId }, { label: 'k' })).key}`,
      };
      // Back to the schema before search, the posts staying.
      const { error } = await (await migratorOf(testDb.database)).migrateTo('012-event-tag-order');
      assert.equal(error, undefined);
      app = await buildApp({ config: testConfig({ RESPONSE_CACHE_MB: '0' }), database: testDb.database, clock: systemClock });
    });
    after(async () => {
      await app?.close();
      await testDb?.drop();
    });

    const apiPage = async (q: string) => {
      const res = await app.inject({ method: 'GET', url: `/admin/v0/search?q=${encodeURIComponent(q)}&per_page=50`, headers: auth });
      assert.equal(res.statusCode, 200, res.body);
      return res.json<{ data: { total_records: number; records: { id: string }[] } }>().data;
    };

    it('indexes the stored posts when it migrates: every query finds what it finds after a reindex', async () => {
      assert.ok((await migrateToLatest(testDb.database)).includes('013-post-search'));
      const { rows } = await sql<{ n: number }>`select count(*) as n from post_search`.execute(testDb.database.db);
      assert.equal(Number(rows[0]?.n), 400);
      const unpaired = async () =>
        (await sql<{ community_id: string }>`select community_id from post_search_unpaired`.execute(testDb.database.db)).rows.map(
          (row) => row.community_id,
        );
      assert.deepEqual(await unpaired(), [communityId], 'indexed before word pairs');
      const migrated = [];
      for (const q of queries) migrated.push(await apiPage(q));
      assert.ok(
        migrated.every((page) => page.total_records > 0),
        migrated.map((page) => page.total_records).join(' '),
      );

      const reindexed = await runCli(['search', 'reindex', '--community', communityId, '--json'], testDb.env);
      assert.equal(reindexed.code, 0, reindexed.stderr);
      assert.deepEqual(parseJsonOutput(reindexed), { indexed: 400 });
      assert.deepEqual(await unpaired(), [], 'reindexed with word pairs');
      for (const [i, q] of queries.entries()) assert.deepEqual(await apiPage(q), migrated[i], q);
    });

    it('`search --json` prints the page the API answers; the text form lists the posts; bad input exits 1 with a message', async () => {
      for (const q of queries.slice(0, 2)) {
        const result = await runCli(['search', '--community', communityId, '--per-page', '50', '--json', q], testDb.env);
        assert.equal(result.code, 0, result.stderr);
        assert.deepEqual(parseJsonOutput(result), await apiPage(q));
      }
      const first = (await apiPage('update')).records[0];
      const text = await runCli(['search', '--community', communityId, 'update'], testDb.env);
      assert.equal(text.code, 0, text.stderr);
      assert.ok(text.stdout.includes(String(first?.id)), text.stdout);
      assert.match(text.stdout, /post\(s\) found; page 0 of/);
      const empty = await runCli(['search', '--community', communityId, '   '], testDb.env);
      assert.equal(empty.code, 1);
      assert.match(empty.stderr, /1 to 200 characters/);
      const noCommunity = await runCli(['search', 'reindex'], testDb.env);
      assert.equal(noCommunity.code, 1);
      assert.match(noCommunity.stderr, /--community/);
    });
  });
}
