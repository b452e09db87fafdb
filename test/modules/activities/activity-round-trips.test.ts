// On PostgreSQL a change's record costs it no round trip: the append goes in the commit's message.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { createCommunity } from '../../../src/modules/communities/communities.commands.js';
import { systemClock } from '../../../src/shared/clock.js';
import { writeCommunityData } from '../../../src/write-path/write-community-data.js';
import { createTestDatabase, postgresSkipReason, type TestDatabase } from '../../support/harness.js';

// Messages sent: every query handed to a node-postgres client is one round trip.
const sent: string[] = [];
const clientPrototype = pg.Client.prototype as unknown as { query(...args: unknown[]): unknown };
const originalQuery = clientPrototype.query;
clientPrototype.query = function (this: unknown, ...args: unknown[]) {
  const first = args[0];
  sent.push(typeof first === 'string' ? first : String((first as { text?: unknown })?.text ?? 'cursor'));
  return originalQuery.apply(this, args);
};

describe('the activity record of a write on PostgreSQL', { skip: postgresSkipReason }, () => {
  let testDb: TestDatabase;
  let communityId = '';
  before(async () => {
    testDb = await createTestDatabase('postgres');
    communityId = (await createCommunity({ database: testDb.database, clock: systemClock }, { name: 'Trips', plan: 'enterprise' })).id;
  });
  after(async () => {
    await testDb?.drop();
  });

  const write = async (withRecord: boolean) => {
    const from = sent.length;
    await writeCommunityData({ database: testDb.database, clock: systemClock }, communityId, async (w) => {
      w.touch('events');
      if (withRecord) w.record({ action: 'calendar_event.deleted', target: { type: 'calendar_event', id: 'x', name: null } });
    });
    return sent.slice(from);
  };

  it('adds no message: the append rides in the commit message, the chain computed by the server', async () => {
    // Warm: the session statements are prepared in the first messages of a connection.
    for (let i = 0; i < 6; i++) await write(true);
    const without = await write(false);
    const withRecord = await write(true);
    assert.equal(withRecord.length, without.length, `${JSON.stringify(without)}\n${JSON.stringify(withRecord)}`);
    const last = withRecord.at(-1) ?? '';
    assert.match(last, /execute ca_s_append_activity\(/);
    assert.match(last, /;\ncommit$/);
  });
});
