// occurred_at to the microsecond: a record written with the clock's microseconds beside one written
// to the millisecond (as every record was before), one chain that verifies, and an export/import
// round trip that keeps both spellings and still verifies.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { runImport } from '../../../src/import/run-import.js';
import { verifyChain } from '../../../src/modules/activities/reads/verify-chain.js';
import { createCommunity } from '../../../src/modules/communities/communities.commands.js';
import type { Clock } from '../../../src/shared/clock.js';
import { epochMicros, epochMillis } from '../../../src/shared/time.js';
import { writeCommunityData } from '../../../src/write-path/write-community-data.js';
import { exportText, importText } from '../../export/round-trip-support.js';
import { describeEachEngine } from '../../support/harness.js';

type Json = Record<string, unknown>;

/** A clock at 2026-11-21T12:00:00.123456Z that has microseconds (as the system clock does). */
const microsClock: Clock = { now: () => epochMillis(1_795_262_400_123), nowMicros: () => epochMicros(1_795_262_400_123_456) };

describeEachEngine('occurred_at to the microsecond', (ctx) => {
  it('answers the clock’s microseconds in the hosted spelling; records written to the millisecond verify in the same chain, and across a round trip', async () => {
    const t = ctx();
    const c = await t.community('enterprise');
    const record = (clock: Clock, name: string) =>
      writeCommunityData({ database: t.database, clock }, c.id, async (w) => {
        w.record({ action: 'feed.updated', target: { type: 'feed', id: name, name } });
      });
    // The harness's clock has no microseconds: the millisecond, as every record before them had.
    await record(t.clock, 'millis');
    await record(microsClock, 'micros');
    const res = await t.request({ method: 'GET', url: '/admin/v0/activities?action=feed.updated', headers: c.auth });
    const answered = res.json<{ data: { records: { occurred_at: string; target: { id: string } }[] } }>().data.records;
    assert.deepEqual(
      answered.map((r) => [r.target.id, r.occurred_at]),
      [
        ['micros', '2026-11-21T12:00:00.123456+00:00'],
        ['millis', '2026-11-21T12:00:00+00:00'],
      ],
    );
    assert.equal((await verifyChain(t.database.db, c.id)).ok, true);

    const exported = await exportText(t.database, c.id);
    const copy = await createCommunity({ database: t.database, clock: t.clock }, { name: 'Copy', plan: 'enterprise' });
    await importText(t.database, t.clock, copy.id, exported);
    const verdict = await verifyChain(t.database.db, copy.id);
    assert.equal(verdict.ok, true, JSON.stringify(verdict.problem));
    const copied = (JSON.parse(await exportText(t.database, copy.id)) as { activities: Json[] }).activities;
    assert.deepEqual(copied.slice(0, -1), (JSON.parse(exported) as { activities: Json[] }).activities, 'every record unchanged');

    // Another spelling of the same instant would load and then fail verify: refused at the import.
    const respelled = JSON.parse(exported) as { activities: Json[] };
    const index = respelled.activities.findIndex((r) => r.occurred_at === '2026-11-21T12:00:00.123456+00:00');
    (respelled.activities[index] as Json).occurred_at = '2026-11-21T12:00:00.123456Z';
    const other = await createCommunity({ database: t.database, clock: t.clock }, { name: 'Other', plan: 'enterprise' });
    await assert.rejects(
      () => runImport({ database: t.database, clock: t.clock, communityId: other.id }, respelled),
      new RegExp(`activities\\[${index}\\]\\.occurred_at: must be spelled as the export writes it: 2026-11-21T12:00:00\\.123456\\+00:00`),
    );
  });
});
