// GET /admin/v0/activities/export: the log as a file, the one the CLI's `activity export` writes
// (the console's export buttons download it).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createApiKey } from '../../../src/modules/api-keys/api-keys.commands.js';
import { writeCommunityData } from '../../../src/write-path/write-community-data.js';
import { describeEachEngine, type TestApp } from '../../support/harness.js';

interface Activity {
  id: string;
  occurred_at: string;
  action: string;
  target: { type: string; id: string | null; name: string | null };
  hash: string;
}
type Auth = { authorization: string };

const csvHeader =
  'id,occurred_at,action,actor_type,actor_id,actor_label,target_type,target_id,target_name,request_id,ip,user_agent,changes,metadata,hash';

async function listed(t: TestApp, auth: Auth, query = ''): Promise<Activity[]> {
  const records: Activity[] = [];
  for (let page = 0; ; page++) {
    const res = await t.request({ method: 'GET', url: `/admin/v0/activities?per_page=100&page=${page}${query}`, headers: auth });
    assert.equal(res.statusCode, 200, res.body);
    const data = res.json<{ data: { records: Activity[]; has_next: boolean } }>().data;
    records.push(...data.records);
    if (!data.has_next) return records.reverse();
  }
}

const download = (t: TestApp, auth: Auth, query: string) =>
  t.request({ method: 'GET', url: `/admin/v0/activities/export?${query}`, headers: auth });

describeEachEngine('GET /admin/v0/activities/export', (ctx) => {
  it('streams every record oldest first as JSON Lines, exactly as the list answers them, past a batch of a thousand', async () => {
    const t = ctx();
    const c = await t.community();
    // 1,050 records in one write: the file is read a thousand at a time.
    await writeCommunityData({ database: t.database, clock: t.clock }, c.id, async (w) => {
      for (let i = 0; i < 1050; i++)
        w.record({ action: 'feed.updated', target: { type: 'feed', id: `f-${i}`, name: `Feed "${i}", the one` } });
    });
    const res = await download(t, c.auth, 'format=jsonl');
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['content-type'], 'application/x-ndjson; charset=utf-8');
    assert.equal(res.headers['content-disposition'], 'attachment; filename="activity.jsonl"');
    const lines = res.body.trimEnd().split('\n');
    const all = await listed(t, c.auth);
    assert.equal(lines.length, all.length);
    assert.ok(all.length > 1050);
    assert.deepEqual(
      lines.map((line) => JSON.parse(line) as Activity),
      all,
    );
  });

  it('writes the CLI export’s CSV (the same columns, RFC 4180 quoting, CRLF) with the list’s filters', async () => {
    const t = ctx();
    const c = await t.community();
    for (const title of ['Plain', 'With, a comma and "quotes"']) {
      const res = await t.request({
        method: 'POST',
        url: '/admin/v0/calendar_events',
        headers: c.auth,
        payload: { title, start_date: '2026-12-01T18:00:00Z' },
      });
      assert.equal(res.statusCode, 201, res.body);
      t.clock.advance(60_000);
    }
    const res = await download(t, c.auth, 'format=csv&action=calendar_event.*');
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
    const rows = res.body.split('\r\n');
    assert.equal(rows.at(-1), '', 'every line ends with CRLF');
    assert.equal(rows[0], csvHeader);
    const events = await listed(t, c.auth, '&action=calendar_event.*');
    assert.equal(rows.length, events.length + 2);
    assert.ok(rows[1]?.startsWith(`${events[0]?.id},${events[0]?.occurred_at},calendar_event.created,api_key,${c.keyId},test,`));
    assert.ok(rows[2]?.includes(',"With, a comma and ""quotes""",'), rows[2]);
    assert.ok(rows[2]?.endsWith(`,${events[1]?.hash}`));
    const later = await download(
      t,
      c.auth,
      `format=csv&action=calendar_event.created&since=${encodeURIComponent(events[1]?.occurred_at ?? '')}`,
    );
    assert.equal(later.body.split('\r\n').length, 3, 'the header and the second event');
  });

  it('refuses a bad format or filter with a 400 naming it, and a key without activities:read with a 403', async () => {
    const t = ctx();
    const c = await t.community();
    for (const [query, parameter] of [
      ['', 'format'],
      ['format=xml', 'format'],
      ['format=csv&since=yesterday', 'since'],
      ['format=jsonl&action=nothing.happened', 'action'],
    ] as const) {
      const res = await download(t, c.auth, query);
      assert.equal(res.statusCode, 400, query);
      assert.match(res.json<{ error: { message: string } }>().error.message, new RegExp(parameter), query);
    }
    const scoped = await createApiKey(
      { database: t.database, clock: t.clock, communityId: c.id },
      { label: 'events', permissions: new Set(['calendar_events:read'] as const) },
    );
    const refused = await download(t, { authorization: `Bearer ${scoped.key}` }, 'format=jsonl');
    assert.equal(refused.statusCode, 403, refused.body);
  });
});
