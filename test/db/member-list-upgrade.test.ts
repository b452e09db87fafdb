// Migration 019 adds the member list's folded sort and search columns to databases that already
// hold members, filling them with the rule the application writes new members with.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { migrateToLatest } from '../../src/db/database.js';
import { migratorOf } from '../../src/db/schema-migrator.js';
import { runImport } from '../../src/import/run-import.js';
import { createCommunity } from '../../src/modules/communities/communities.commands.js';
import { listMembers } from '../../src/modules/members/members.reads.js';
import { systemClock } from '../../src/shared/clock.js';
import { createTestDatabase, engines, type TestDatabase } from '../support/harness.js';

const id = (n: number) => `d0000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

for (const { engine, skip } of engines) {
  describe(`the member list on a database that already holds members [${engine}]`, { skip }, () => {
    let testDb: TestDatabase;
    let communityId = '';

    before(async () => {
      testDb = await createTestDatabase(engine);
      communityId = (await createCommunity({ database: testDb.database, clock: systemClock }, { name: 'Upgrade', plan: 'free' })).id;
      await runImport(
        { database: testDb.database, clock: systemClock, communityId },
        {
          members: [
            { id: id(1), email: 'Zoe@Example.org', full_name: 'Zoë Ålander', preferred_name: 'Zozo' },
            { id: id(2), email: 'ada@example.com', full_name: 'ada Łukasiewicz' },
            { id: id(3), email: 'bob@example.com', full_name: 'Bob Æsir' },
          ],
        },
      );
      // Back to the schema before the list (its columns and indexes go), the members staying.
      const { error } = await (await migratorOf(testDb.database)).migrateTo('018-post-search-fts-automerge');
      assert.equal(error, undefined);
    });
    after(async () => testDb?.drop());

    it('fills the columns of every member: found and sorted as members written since', async () => {
      // The later migrations run again too: 019 is the one that matters here.
      assert.equal((await migrateToLatest(testDb.database))[0], '019-member-list');
      const query = { page: 0, per_page: 10 };
      const all = await listMembers({ database: testDb.database, clock: systemClock }, communityId, query);
      const names = (records: string[]) => records.map((m) => (JSON.parse(m) as { full_name: string }).full_name);
      assert.deepEqual(names(all.records), ['ada Łukasiewicz', 'Bob Æsir', 'Zoë Ålander']);
      for (const [q, name] of [
        ['lukasiewicz', 'ada Łukasiewicz'],
        ['aesir', 'Bob Æsir'],
        ['ZOZO', 'Zoë Ålander'],
        ['zoe@example', 'Zoë Ålander'],
      ]) {
        const found = await listMembers({ database: testDb.database, clock: systemClock }, communityId, { ...query, q });
        assert.deepEqual(names(found.records), [name], q);
      }
    });
  });
}
