import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it } from 'node:test';
import { runImport } from '../../../src/import/run-import.js';
import { createApiKey } from '../../../src/modules/api-keys/api-keys.commands.js';
import { describeEachEngine, type TestApp } from '../../support/harness.js';

interface Award {
  id: string;
  name: string;
  description: string | null;
  emoji: string | null;
  assigned_count: number;
  created_at: string;
}
interface ErrorBody {
  error: { code: string; message: string };
}

const create = (t: TestApp, auth: { authorization: string }, payload: unknown) =>
  t.request({ method: 'POST', url: '/admin/v0/awards', headers: auth, payload: payload as object });

describeEachEngine('GET and POST /admin/v0/awards (extension)', (ctx) => {
  it('creates an award (201, as award create: trimmed, blank description and emoji null) and lists it with its holder count', async () => {
    const t = ctx();
    t.clock.set('2026-11-28T01:00:00.000Z');
    const community = await t.community('free');
    const res = await create(t, community.auth, { name: '  Helper of the month ', description: 'Answered the most', emoji: ':star:' });
    assert.equal(res.statusCode, 201, res.body);
    const award = res.json<{ data: Award }>().data;
    assert.deepEqual(
      { ...award, id: undefined },
      {
        id: undefined,
        name: 'Helper of the month',
        description: 'Answered the most',
        emoji: ':star:',
        assigned_count: 0,
        created_at: '2026-11-28T01:00:00+00:00',
      },
    );
    t.clock.advance(1000);
    const plain = await create(t, community.auth, { name: 'Plain', description: '  ', emoji: null });
    assert.equal(plain.statusCode, 201, plain.body);
    assert.deepEqual([plain.json<{ data: Award }>().data.description, plain.json<{ data: Award }>().data.emoji], [null, null]);

    const profile = randomUUID();
    await runImport(
      { database: t.database, clock: t.clock, communityId: community.id },
      { profiles: [{ profile_id: profile, email: 'ada@example.com' }] },
    );
    const assigned = await t.request({
      method: 'POST',
      url: `/admin/v0/awards/${award.id}/assign`,
      headers: community.auth,
      payload: { recipient: { profile_id: profile } },
    });
    assert.equal(assigned.statusCode, 200, assigned.body);
    const list = await t.request({ method: 'GET', url: '/admin/v0/awards?per_page=1', headers: community.auth });
    assert.equal(list.statusCode, 200, list.body);
    const data = list.json<{ data: { total_records: number; has_next: boolean; records: Award[] } }>().data;
    assert.deepEqual([data.total_records, data.has_next], [2, true]);
    assert.deepEqual(data.records, [{ ...award, assigned_count: 1 }]);
    const second = await t.request({ method: 'GET', url: '/admin/v0/awards?per_page=1&page=1', headers: community.auth });
    assert.equal(second.json<{ data: { records: Award[] } }>().data.records[0]?.name, 'Plain');
    // Not another community's.
    const other = await t.community('free');
    const none = await t.request({ method: 'GET', url: '/admin/v0/awards', headers: other.auth });
    assert.equal(none.json<{ data: { total_records: number } }>().data.total_records, 0);
  });

  it('refuses a name the community uses, and fields out of their rules, with 400 naming the field', async () => {
    const t = ctx();
    const community = await t.community('free');
    assert.equal((await create(t, community.auth, { name: 'Star' })).statusCode, 201);
    const taken = await create(t, community.auth, { name: 'Star' });
    assert.equal(taken.statusCode, 400, taken.body);
    assert.match(taken.json<ErrorBody>().error.message, /already has an award named "Star"/);
    for (const [payload, field] of [
      [{ name: '' }, 'name'],
      [{ name: '   ' }, 'name'],
      [{ name: 'x'.repeat(101) }, 'name'],
      [{ name: 'A', description: 'x'.repeat(501) }, 'description'],
      [{ name: 'A', emoji: 'star' }, 'emoji'],
      [{ name: 'A', color: 'red' }, 'color'],
      [{}, 'name'],
    ] as const) {
      const res = await create(t, community.auth, payload);
      assert.equal(res.statusCode, 400, `${JSON.stringify(payload)}: ${res.body}`);
      assert.equal(res.json<ErrorBody>().error.code, 'validation_failed');
      assert.match(res.json<ErrorBody>().error.message, new RegExp(field));
    }
  });

  it('the list needs awards:read and the create awards:write', async () => {
    const t = ctx();
    const community = await t.community('free');
    const keyOf = async (held: 'awards:read' | 'awards:write') => {
      const key = await createApiKey(
        { database: t.database, clock: t.clock, communityId: community.id },
        { label: held, permissions: new Set([held]) },
      );
      return { authorization: `Bearer ${key.key}` };
    };
    const reader = await keyOf('awards:read');
    const writer = await keyOf('awards:write');
    assert.equal((await t.request({ method: 'GET', url: '/admin/v0/awards', headers: reader })).statusCode, 200);
    assert.equal((await t.request({ method: 'GET', url: '/admin/v0/awards', headers: writer })).statusCode, 403);
    assert.equal((await create(t, reader, { name: 'R' })).statusCode, 403);
    assert.equal((await create(t, writer, { name: 'W' })).statusCode, 201);
  });
});
