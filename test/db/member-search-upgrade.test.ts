// Migration 024 builds the member list's substring index (docs/members.md, "How `q` is indexed") for
// the members a database already holds: taken back to the schema before it (the index goes, the
// members stay), then upgraded, the database finds them by texts of 3 characters or more (the ones
// the index answers), with exact totals, and keeps indexing the members written since.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { migrateToLatest } from '../../src/db/database.js';
import { migratorOf } from '../../src/db/schema-migrator.js';
import { runImport } from '../../src/import/run-import.js';
import { createCommunity } from '../../src/modules/communities/communities.commands.js';
import { listMembers } from '../../src/modules/members/members.reads.js';
import { systemClock } from '../../src/shared/clock.js';
import { createTestDatabase, engines, type TestDatabase } from '../support/harness.js';

const id = (n: number) => `d1000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

for (const { engine, skip } of engines) {
  describe(`the member search index on a database that already holds members [${engine}]`, { skip }, () => {
    let testDb: TestDatabase;
    let communityId = '';
    const names = (records: string[]) => records.map((m) => (JSON.parse(m) as { full_name: string }).full_name);
    const search = (q: string, status?: 'active' | 'deactivated') =>
      listMembers({ database: testDb.database, clock: systemClock }, communityId, {
        page: 0,
        per_page: 10,
        q,
        ...(status ? { status } : {}),
      });

    before(async () => {
      testDb = await createTestDatabase(engine);
      communityId = (await createCommunity({ database: testDb.database, clock: systemClock }, { name: 'Upgrade', plan: 'free' })).id;
      await runImport(
        { database: testDb.database, clock: systemClock, communityId },
        {
          members: [
            { id: id(1), email: 'Zoe@Example.org', full_name: 'Zoë Ålander', preferred_name: 'Zozo' },
            { id: id(2), email: 'ada@example.com', full_name: 'Ada Lovelace' },
            { id: id(3), email: 'zoe.b@example.net', full_name: 'Zoe Bloggs', state: 'deactivated' },
          ],
        },
      );
      const { error } = await (await migratorOf(testDb.database)).migrateTo('023-activity-log');
      assert.equal(error, undefined);
    });
    after(async () => testDb?.drop());

    it('indexes the members stored before it: found by name, preferred name and email, with exact totals', async () => {
      assert.deepEqual(await migrateToLatest(testDb.database), ['024-member-search-index']);
      const zoe = await search('ZOË');
      assert.deepEqual(names(zoe.records), ['Zoë Ålander', 'Zoe Bloggs']);
      assert.equal(zoe.total_records, 2);
      assert.deepEqual(names((await search('zoe', 'active')).records), ['Zoë Ålander']);
      assert.deepEqual(names((await search('zoe', 'deactivated')).records), ['Zoe Bloggs']);
      assert.deepEqual(names((await search('zozo')).records), ['Zoë Ålander']);
      assert.deepEqual(names((await search('ada@example')).records), ['Ada Lovelace']);
      assert.equal((await search('lovelaceada')).total_records, 0);
    });

    it('keeps indexing members written after the upgrade', async () => {
      await runImport(
        { database: testDb.database, clock: systemClock, communityId },
        {
          members: [
            { id: id(2), email: 'ada@example.com', full_name: 'Ada Byron' },
            { id: id(4), email: 'new@example.org', full_name: 'Zoé Newcomer' },
          ],
        },
      );
      assert.deepEqual(names((await search('zoe', 'active')).records), ['Zoë Ålander', 'Zoé Newcomer']);
      assert.equal((await search('lovelace')).total_records, 0);
      assert.deepEqual(names((await search('byron')).records), ['Ada Byron']);
    });
  });
}
