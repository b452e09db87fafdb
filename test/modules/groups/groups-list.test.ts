import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it } from 'node:test';
import { runImport } from '../../../src/import/run-import.js';
import { createApiKey } from '../../../src/modules/api-keys/api-keys.commands.js';
import { describeEachEngine } from '../../support/harness.js';

interface GroupRecord {
  id: string;
  name: string;
  member_count: number;
  created_at: string;
}
interface ListBody {
  data: {
    page: number;
    per_page: number;
    count: number;
    total_records: number;
    total_pages: number;
    has_next: boolean;
    records: GroupRecord[];
  };
  error?: { code: string; message: string };
}

describeEachEngine('GET /admin/v0/groups (extension)', (ctx) => {
  it('lists the groups by name (byte order, ties by id) with member counts, paged with exact totals; not another community', async () => {
    const t = ctx();
    const community = await t.community('free');
    const other = await t.community('free');
    const profiles = [randomUUID(), randomUUID(), randomUUID()];
    await runImport(
      { database: t.database, clock: t.clock, communityId: community.id },
      {
        profiles: profiles.map((profile_id, i) => ({ profile_id, email: `p${i}@example.com` })),
        groups: [
          { id: 'grp-b', name: 'Design', member_profile_ids: profiles },
          { id: 'grp-a', name: 'Design', member_profile_ids: [profiles[0]] },
          { id: 'grp-c', name: 'Admins', created_at: '2024-01-02T03:04:05.123456+00:00' },
          { id: 'grp-d', name: 'engineering' },
        ],
      },
    );
    await runImport({ database: t.database, clock: t.clock, communityId: other.id }, { groups: [{ id: 'grp-x', name: 'Another' }] });
    const res = await t.request({ method: 'GET', url: '/admin/v0/groups?per_page=3', headers: community.auth });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json<ListBody>();
    assert.deepEqual(
      body.data.records.map((g) => [g.id, g.name, g.member_count]),
      [
        ['grp-c', 'Admins', 0],
        ['grp-a', 'Design', 1],
        ['grp-b', 'Design', 3],
      ],
    );
    assert.equal(body.data.records[0]?.created_at, '2024-01-02T03:04:05.123456+00:00');
    assert.deepEqual([body.data.total_records, body.data.total_pages, body.data.has_next], [4, 2, true]);
    const next = await t.request({ method: 'GET', url: '/admin/v0/groups?per_page=3&page=1', headers: community.auth });
    assert.deepEqual(
      next.json<ListBody>().data.records.map((g) => g.id),
      ['grp-d'],
    );
  });

  it('needs groups:read (groups:write alone is refused) and answers 400 naming a bad parameter', async () => {
    const t = ctx();
    const community = await t.community('free');
    const writer = await createApiKey(
      { database: t.database, clock: t.clock, communityId: community.id },
      { label: 'w', permissions: new Set(['groups:write']) },
    );
    const refused = await t.request({ method: 'GET', url: '/admin/v0/groups', headers: { authorization: `Bearer ${writer.key}` } });
    assert.equal(refused.statusCode, 403);
    assert.match(refused.json<ListBody>().error?.message ?? '', /groups:read/);
    for (const [query, param] of [
      ['per_page=51', 'per_page'],
      ['page=-1', 'page'],
      ['sort=name', 'sort'],
    ]) {
      const bad = await t.request({ method: 'GET', url: `/admin/v0/groups?${query}`, headers: community.auth });
      assert.equal(bad.statusCode, 400, query);
      assert.match(bad.json<ListBody>().error?.message ?? '', new RegExp(`\\b${param}\\b`));
    }
  });
});
