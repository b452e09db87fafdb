// Migration 011 adds an expression index on events' slugs to databases that already hold events.
// PostgreSQL plans with statistics of the expression only once the table is analysed: without them
// a create's lookup of 50 candidate slugs read every event of the community (seconds at 100k).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CompiledQuery } from 'kysely';
import { migrateToLatest } from '../../src/db/database.js';
import { migratorOf } from '../../src/db/schema-migrator.js';
import { takenSlugsQuery } from '../../src/modules/calendar-events/queries/events.js';
import { createCommunity } from '../../src/modules/communities/communities.commands.js';
import { systemClock } from '../../src/shared/clock.js';
import { runCli } from '../support/cli.js';
import { createTestDatabase, postgresSkipReason, type TestDatabase } from '../support/harness.js';

describe('the slug index on a database that already holds events [postgres]', { skip: postgresSkipReason }, () => {
  let testDb: TestDatabase;
  let communityId = '';

  before(async () => {
    testDb = await createTestDatabase('postgres');
    communityId = (await createCommunity({ database: testDb.database, clock: systemClock }, { name: 'Upgrade', plan: 'enterprise' })).id;
    const seeded = await runCli(
      ['seed', '--community', communityId, '--events', '5000', '--posts', '0', '--profiles', '50', '--json'],
      testDb.env,
    );
    assert.equal(seeded.code, 0, seeded.stderr);
    // Back to the schema before the index (its statistics go with it), the events staying.
    const { error } = await (await migratorOf(testDb.database)).migrateTo('010-webhook-outbox');
    assert.equal(error, undefined);
  });
  after(async () => testDb?.drop());

  it('is used by the lookup of candidate slugs right after the upgrade', async () => {
    assert.deepEqual((await migrateToLatest(testDb.database)).slice(0, 1), ['011-event-slug-index']);
    const candidates = Array.from({ length: 50 }, (_, i) => (i === 0 ? 'meetup' : `meetup-${i + 1}`));
    const compiled = takenSlugsQuery(testDb.database.db, communityId, candidates).compile();
    const plan = await testDb.database.db.executeQuery<{ 'QUERY PLAN': string }>(
      CompiledQuery.raw(`EXPLAIN ${compiled.sql}`, [...compiled.parameters]),
    );
    const text = plan.rows.map((row) => row['QUERY PLAN']).join('\n');
    assert.match(text, /Index Scan using calendar_events_slug|Bitmap Index Scan on calendar_events_slug/, text);
  });
});
