import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import fastJson from 'fast-json-stringify';
import { createApiKey } from '../../../src/modules/api-keys/api-keys.commands.js';
import { createCommunity } from '../../../src/modules/communities/communities.commands.js';
import { MemberListRecordSchema } from '../../../src/modules/members/members.schemas.js';
import { describeEachEngine } from '../../support/harness.js';
import { importInto } from './members-support.js';

interface ListRecord {
  id: string;
  email: string;
  full_name: string;
  preferred_name: string;
  avatar_url_original: string | null;
  chat_profile_id: string | null;
  is_deactivated: boolean;
  joined_at: string;
}
interface ListBody {
  success: boolean;
  data: {
    page: number;
    per_page: number;
    count: number;
    total_records: number;
    total_pages: number;
    has_next: boolean;
    records: ListRecord[];
  };
  error?: { code: string; message: string };
}

const id = (n: number) => `c0000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const member = (n: number, fullName: string, email: string, joined: string, extra: Record<string, unknown> = {}) => ({
  id: id(n),
  email,
  full_name: fullName,
  created_at: joined,
  updated_at: joined,
  ...extra,
});

// Names chosen so that byte order, case and accents would each give another order than the folded one.
const members = [
  member(1, 'Ada Lovelace', 'ada@example.com', '2024-03-01T10:00:00Z', { avatar_url_original: 'https://example.com/ada.png' }),
  member(2, 'bob Smith', 'BOB@Example.org', '2024-01-01T10:00:00Z'),
  member(3, 'Zoë Ålander', 'zoe@example.org', '2024-02-01T10:00:00Z', { preferred_name: 'Zozo' }),
  member(4, 'Émile Zola', 'emile@example.fr', '2023-12-01T10:00:00Z', { state: 'deactivated' }),
  member(5, 'Forgotten Person', 'gone@example.com', '2024-04-01T10:00:00Z', { state: 'forgotten' }),
  // Two of one name and one join instant: the id breaks the tie, either way.
  member(7, 'Sam Lee', 'sam2@example.com', '2024-05-01T10:00:00Z'),
  member(6, 'Sam Lee', 'sam1@example.com', '2024-05-01T10:00:00Z'),
  member(8, '100%_Real Name', 'real@example.com', '2024-06-01T10:00:00Z'),
];

describeEachEngine('members: GET /members (extension)', (ctx) => {
  let auth: { authorization: string };
  let communityId: string;

  const list = async (query = '', headers = auth) => {
    const res = await ctx().request({ method: 'GET', url: `/admin/v0/members${query === '' ? '' : `?${query}`}`, headers });
    return { status: res.statusCode, body: res.json<ListBody>() };
  };
  const names = (body: ListBody) => body.data.records.map((r) => r.full_name);

  before(async () => {
    const community = await ctx().community('free');
    auth = community.auth;
    communityId = community.id;
    await importInto(ctx(), communityId, { members });
    // Another community's member with a matching name is never listed.
    const other = await ctx().community('free', 'Other');
    await importInto(ctx(), other.id, { members: [member(99, 'Ada Other', 'ada@other.example', '2024-01-01T00:00:00Z')] });
  });

  it('lists active and deactivated members by folded name (ties by id), never forgotten ones, on the free plan, with exact totals', async () => {
    const { status, body } = await list();
    assert.equal(status, 200, JSON.stringify(body));
    assert.deepEqual(names(body), ['100%_Real Name', 'Ada Lovelace', 'bob Smith', 'Émile Zola', 'Sam Lee', 'Sam Lee', 'Zoë Ålander']);
    assert.deepEqual(
      body.data.records.filter((r) => r.full_name === 'Sam Lee').map((r) => r.id),
      [id(6), id(7)],
    );
    assert.deepEqual(
      { ...body.data, records: undefined },
      { page: 0, per_page: 10, count: 7, total_records: 7, total_pages: 1, has_next: false, records: undefined },
    );
  });

  it('answers the member object of POST /members plus is_deactivated and joined_at, as its schema serialises it', async () => {
    const { body } = await list('q=emile');
    // The records are assembled as JSON text (members.records.ts): they must read back through the schema unchanged.
    const serialize = fastJson(MemberListRecordSchema);
    for (const record of (await list('per_page=50')).body.data.records)
      assert.deepEqual(JSON.parse(serialize(record)), record, record.full_name);
    assert.deepEqual(body.data.records, [
      {
        id: id(4),
        email: 'emile@example.fr',
        full_name: 'Émile Zola',
        preferred_name: 'Émile',
        avatar_url_original: null,
        chat_profile_id: null,
        is_deactivated: true,
        joined_at: '2023-12-01T10:00:00+00:00',
      },
    ]);
    const active = await list('q=ada%20love');
    assert.equal(active.body.data.records[0]?.is_deactivated, false);
  });

  it('finds by full name, preferred name or email, case and accents ignored; an empty q is no filter', async () => {
    assert.deepEqual(names((await list('q=LOVELACE')).body), ['Ada Lovelace']);
    assert.deepEqual(names((await list('q=zoe')).body), ['Zoë Ålander']);
    assert.deepEqual(names((await list('q=%C3%A5lander')).body), ['Zoë Ålander']);
    assert.deepEqual(names((await list('q=zozo')).body), ['Zoë Ålander']);
    assert.deepEqual(names((await list('q=example.org')).body), ['bob Smith', 'Zoë Ålander']);
    assert.deepEqual(names((await list('q=%20%20ADA%20%20%20lovelace%20')).body), ['Ada Lovelace']);
    const empty = await list('q=');
    assert.equal(empty.status, 200);
    assert.equal(empty.body.data.total_records, 7);
    const none = await list('q=nobody');
    assert.deepEqual([none.body.data.total_records, none.body.data.records], [0, []]);
    // The forgotten member's name is not found either.
    assert.equal((await list('q=forgotten')).body.data.total_records, 0);
  });

  it('reads % and _ in q as letters, and never matches across name and email', async () => {
    assert.deepEqual(names((await list('q=%25_')).body), ['100%_Real Name']);
    assert.deepEqual(names((await list('q=_')).body), ['100%_Real Name']);
    // "lovelace" ends the full name and "ada@" starts the email: no match spans the two.
    assert.equal((await list('q=lovelaceada')).body.data.total_records, 0);
  });

  it('filters by status, with the total of the filter', async () => {
    const deactivated = await list('status=deactivated');
    assert.deepEqual(names(deactivated.body), ['Émile Zola']);
    assert.equal(deactivated.body.data.total_records, 1);
    const active = await list('status=active&q=e');
    assert.deepEqual(names(active.body), ['100%_Real Name', 'Ada Lovelace', 'bob Smith', 'Sam Lee', 'Sam Lee', 'Zoë Ålander']);
    assert.equal(active.body.data.total_records, 6);
    assert.equal((await list('status=deactivated&q=ada')).body.data.total_records, 0);
    assert.equal((await list('status=active')).body.data.total_records, 6);
  });

  it('sorts by name or by joined_at, either way, ties by id the same way', async () => {
    assert.deepEqual(names((await list('sort=-name')).body), [
      'Zoë Ålander',
      'Sam Lee',
      'Sam Lee',
      'Émile Zola',
      'bob Smith',
      'Ada Lovelace',
      '100%_Real Name',
    ]);
    const byJoined = (await list('sort=joined_at')).body.data.records;
    assert.deepEqual(
      byJoined.map((r) => r.email),
      [
        'emile@example.fr',
        'BOB@Example.org',
        'zoe@example.org',
        'ada@example.com',
        'sam1@example.com',
        'sam2@example.com',
        'real@example.com',
      ],
    );
    const latest = (await list('sort=-joined_at')).body.data.records;
    assert.deepEqual(
      latest.map((r) => r.email),
      [
        'real@example.com',
        'sam2@example.com',
        'sam1@example.com',
        'ada@example.com',
        'zoe@example.org',
        'BOB@Example.org',
        'emile@example.fr',
      ],
    );
  });

  it('pages are stable and complete: every member once across pages of 2, in the order of the whole list', async () => {
    for (const sort of ['name', '-name', 'joined_at', '-joined_at']) {
      const whole = (await list(`sort=${sort}&per_page=50`)).body.data.records.map((r) => r.id);
      const paged: string[] = [];
      for (let page = 0; ; page++) {
        const { body } = await list(`sort=${sort}&per_page=2&page=${page}`);
        assert.equal(body.data.total_records, 7);
        assert.equal(body.data.total_pages, 4);
        paged.push(...body.data.records.map((r) => r.id));
        if (!body.data.has_next) break;
      }
      assert.deepEqual(paged, whole, sort);
    }
  });

  it('sees a member added through the API at once, and its join instant', async () => {
    const t = ctx();
    const community = await t.community('enterprise');
    t.clock.set(Date.parse('2025-01-02T03:04:05.678Z'));
    const added = await t.request({
      method: 'POST',
      url: '/admin/v0/members',
      headers: community.auth,
      payload: { email: 'New@Example.com', full_name: 'Ñandú Pérez' },
    });
    assert.equal(added.statusCode, 201, added.body);
    const { body } = await list('q=nandu%20perez', community.auth);
    assert.equal(body.data.records[0]?.email, 'New@Example.com');
    assert.equal(body.data.records[0]?.joined_at, '2025-01-02T03:04:05.678+00:00');
    // Renamed by a second add of the email: found by the new name only.
    await t.request({
      method: 'POST',
      url: '/admin/v0/members',
      headers: community.auth,
      payload: { email: 'new@example.com', full_name: 'Other Name' },
    });
    assert.equal((await list('q=nandu', community.auth)).body.data.total_records, 0);
    assert.equal((await list('q=other%20name', community.auth)).body.data.total_records, 1);
    // Totals are exact after each change (the count cache is keyed by the members' version).
    assert.equal((await list('status=deactivated', community.auth)).body.data.total_records, 0);
    const memberId = (await list('', community.auth)).body.data.records[0]?.id;
    const deactivated = await t.request({ method: 'POST', url: `/admin/v0/members/${memberId}/deactivate`, headers: community.auth });
    assert.equal(deactivated.statusCode, 200, deactivated.body);
    assert.equal((await list('status=deactivated', community.auth)).body.data.total_records, 1);
    assert.equal((await list('status=active', community.auth)).body.data.total_records, 0);
    await importInto(t, community.id, { members: [member(50, 'Imported One', 'imported@example.com', '2024-01-01T00:00:00Z')] });
    assert.equal((await list('status=active', community.auth)).body.data.total_records, 1);
  });

  const refused: [query: string, param: string][] = [
    ['sort=email', 'sort'],
    ['sort=', 'sort'],
    ['status=forgotten', 'status'],
    ['status=', 'status'],
    [`q=${'a'.repeat(201)}`, 'q'],
    ['page=-1', 'page'],
    ['page=x', 'page'],
    ['per_page=0', 'per_page'],
    ['per_page=51', 'per_page'],
    ['query=ada', 'query'],
  ];
  for (const [query, param] of refused) {
    it(`answers 400 validation_failed naming ${param} for ?${query.slice(0, 30)}`, async () => {
      const { status, body } = await list(query);
      assert.equal(status, 400, JSON.stringify(body));
      assert.equal(body.error?.code, 'validation_failed');
      assert.match(body.error?.message ?? '', new RegExp(`\\b${param}\\b`), body.error?.message);
    });
  }

  it('accepts q of 200 characters', async () => {
    assert.equal((await list(`q=${'a'.repeat(200)}`)).status, 200);
  });

  it('needs members:read: a key without it is 403 insufficient_scope', async () => {
    const t = ctx();
    const key = await createApiKey(
      { database: t.database, clock: t.clock, communityId },
      { label: 'no members', permissions: new Set(['feeds:read']) },
    );
    const { status, body } = await list('', { authorization: `Bearer ${key.key}` });
    assert.equal(status, 403);
    assert.equal(body.error?.code, 'insufficient_scope');
    assert.match(body.error?.message ?? '', /members:read/);
  });

  it('an empty community answers an empty first page', async () => {
    const t = ctx();
    const community = await createCommunity({ database: t.database, clock: t.clock }, { name: 'Empty', plan: 'free' });
    const key = await createApiKey({ database: t.database, clock: t.clock, communityId: community.id }, { label: 'k' });
    const { body } = await list('', { authorization: `Bearer ${key.key}` });
    assert.deepEqual(body.data, { page: 0, per_page: 10, count: 0, total_records: 0, total_pages: 0, has_next: false, records: [] });
  });
});
