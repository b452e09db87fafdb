// The member list's `q` on its substring index (migration 024: FTS5 trigrams on SQLite, pg_trgm on
// PostgreSQL, docs/members.md "How `q` is indexed"). Every answer is compared with what the rule
// says, worked out here from the members themselves: the same records in the same order with the same
// total, for texts of 1, 2 and more characters (the short ones are not looked up in the index), after
// every kind of member write (add, rename, deactivate, reactivate, import).
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeEachEngine } from '../../support/harness.js';
import { importInto } from './members-support.js';

interface ListRecord {
  id: string;
  email: string;
  full_name: string;
  is_deactivated: boolean;
}
interface ListBody {
  data: { page: number; count: number; total_records: number; total_pages: number; has_next: boolean; records: ListRecord[] };
}

/** A member as the test knows it (what it was given, never read back from the service). */
interface Known {
  id: string;
  email: string;
  full_name: string;
  preferred_name: string;
  state: 'active' | 'deactivated' | 'forgotten';
  created_at: string;
}

// The rule, written out independently of the service: lower case, accents dropped (the names here
// use no letter that needs more), runs of blanks one space.
const fold = (text: string) => text.toLowerCase().normalize('NFKD').replace(/\p{M}/gu, '').normalize('NFC');
const queryText = (q: string) => fold(q.trim()).replace(/\s+/gu, ' ');
const firstName = (fullName: string) => fullName.trim().split(/\s/)[0] ?? '';

const id = (n: number) => `f0000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const firsts = ['Zoë', 'Émile', 'José', 'ANA', 'Ada', 'Björn', 'Chloé', 'Iñès', 'kai', 'Sam', 'Zoe', 'Ö'];
const lasts = ['Lovelace', 'Ålander', 'García', 'Dubois', '50%_Off', 'Under_Score', 'Novák', 'Chen', 'Lee', 'ZOLA'];

function seed(): Known[] {
  const known: Known[] = [];
  for (let n = 1; n <= 150; n++) {
    const first = firsts[n % firsts.length] as string;
    const last = lasts[Math.floor(n / firsts.length) % lasts.length] as string;
    // Every 13th has the name of the one before (ties broken by id), every 9th a preferred name of its own.
    const fullName = n % 13 === 0 ? (known.at(-1)?.full_name ?? '') : `${first}  ${last}`;
    const preferred = n % 9 === 0 ? (n % 2 === 0 ? 'Zozo' : 'DJ 100%') : firstName(fullName);
    const local = fold(first).replace(/[^a-z]/g, '') || 'x';
    known.push({
      id: id(n),
      email: `${n % 4 === 0 ? local.toUpperCase() : local}_${n}@${n % 3 === 0 ? 'example.org' : 'mail.example.com'}`,
      full_name: fullName,
      preferred_name: preferred,
      state: n % 11 === 0 ? 'forgotten' : n % 7 === 0 ? 'deactivated' : 'active',
      // Five instants: many ties, broken by id.
      created_at: `2024-0${(n % 5) + 1}-01T10:00:00Z`,
    });
  }
  return known;
}

type Sort = 'name' | '-name' | 'joined_at' | '-joined_at';

/** The ids the list must answer for q, status and sort, in order. */
function expected(known: Known[], q: string, status: '' | 'active' | 'deactivated', sort: Sort): string[] {
  const text = queryText(q);
  const found = known.filter(
    (m) =>
      m.state !== 'forgotten' &&
      (status === '' || m.state === status) &&
      (text === '' ||
        [fold(m.full_name.trim()), fold(m.preferred_name), fold(m.email.toLowerCase())].some((field) => field.includes(text))),
  );
  const key = (m: Known) => (sort.endsWith('name') ? fold(m.full_name.trim()) : Date.parse(m.created_at).toString().padStart(16, '0'));
  const byte = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
  found.sort((a, b) => byte(key(a), key(b)) || byte(a.id, b.id));
  if (sort.startsWith('-')) found.reverse();
  return found.map((m) => m.id);
}

// 1 and 2 characters (read without the index), and longer texts: accents, case, blanks, `%`, `_`, a
// text spanning two fields (found nowhere), emails and their parts.
const queries = [
  'z',
  'Ö',
  '%',
  '_',
  '1',
  'zo',
  'OE',
  '%_',
  '@m',
  'zoe',
  'ZOË',
  'zoë ',
  'ana',
  'lovelace',
  'álander',
  '  ada    LOVE ',
  'ada lovelace',
  '50%_off',
  '0%_',
  'under_s',
  'r_s',
  'dj 100%',
  '00%',
  'zozo',
  'example.org',
  '_12@',
  'emile_25@mail',
  '@mail.example.com',
  // Spanning: the full name's end and the preferred name, the preferred name and the email.
  'lovelace ada',
  'lovelaceada',
  'zozozoe',
  'zozo zoe',
  'nobody',
  '"quoted"',
];

describeEachEngine('members: GET /members?q= on the substring index', (ctx) => {
  let auth: { authorization: string };
  let communityId: string;
  let known: Known[];

  const list = async (query: string) => {
    const res = await ctx().request({ method: 'GET', url: `/admin/v0/members?${query}`, headers: auth });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<ListBody>();
  };

  /** Every query, status and sort answers the rule's records in the rule's order, with the exact total. */
  async function checkAll(qs: readonly string[], sorts: readonly Sort[] = ['name', '-name', 'joined_at', '-joined_at']) {
    for (const q of qs) {
      for (const status of ['', 'active', 'deactivated'] as const) {
        for (const sort of sorts) {
          const want = expected(known, q, status, sort);
          const body = await list(`q=${encodeURIComponent(q)}&sort=${sort}&per_page=50${status ? `&status=${status}` : ''}`);
          const label = `q=${JSON.stringify(q)} status=${status} sort=${sort}`;
          assert.deepEqual(
            body.data.records.map((r) => r.id),
            want.slice(0, 50),
            label,
          );
          assert.equal(body.data.total_records, want.length, label);
        }
      }
    }
  }

  before(async () => {
    const community = await ctx().community('enterprise');
    auth = community.auth;
    communityId = community.id;
    known = seed();
    await importInto(ctx(), communityId, { members: known });
    // Another community's members hold the same texts: never listed, never counted.
    const other = await ctx().community('free', 'Other');
    await importInto(ctx(), other.id, {
      members: seed().map((m, i) => ({ ...m, id: id(1000 + i), email: `other.${m.email}` })),
    });
  });

  it('answers every query as the rule does: records, order, exact totals, by status and by each sort', async () => {
    assert.ok(expected(known, 'zoe', '', 'name').length > 20, 'a query of many hits');
    assert.equal(expected(known, 'emile_25@mail', '', 'name').length, 1, 'a query of one hit');
    await checkAll(queries);
  });

  it('never matches across two fields', async () => {
    for (const q of ['lovelace ada', 'lovelaceada', 'zozo zoe', 'zozozoe'])
      assert.equal((await list(`q=${encodeURIComponent(q)}`)).data.total_records, 0, q);
  });

  it('pages through many matches completely and in order, with the total on every page', async () => {
    for (const sort of ['name', '-joined_at'] as const) {
      const want = expected(known, 'zoe', '', sort);
      const paged: string[] = [];
      for (let page = 0; ; page++) {
        const body = await list(`q=zoe&sort=${sort}&per_page=7&page=${page}`);
        assert.equal(body.data.total_records, want.length);
        assert.equal(body.data.total_pages, Math.ceil(want.length / 7));
        paged.push(...body.data.records.map((r) => r.id));
        if (!body.data.has_next) break;
      }
      assert.deepEqual(paged, want, sort);
    }
  });

  it('keeps the index in step with every member write: add, rename, deactivate, reactivate, import', async () => {
    const t = ctx();
    const post = async (email: string, fullName: string) => {
      const res = await t.request({ method: 'POST', url: '/admin/v0/members', headers: auth, payload: { email, full_name: fullName } });
      assert.ok(res.statusCode === 200 || res.statusCode === 201, res.body);
      return res.json<{ data: { member: { id: string } } }>();
    };
    const watched = ['zoe', 'qwerty', 'qw', 'ñandú', 'nandu perez', 'renamed', 'ada', 'lovelace', 'x_1'];

    // An add.
    t.clock.set(Date.parse('2025-01-01T00:00:00Z'));
    const added = await post('Qwerty@Example.net', 'Ñandú Pérez');
    const addedId = added.data.member.id;
    known.push({
      id: addedId,
      email: 'Qwerty@Example.net',
      full_name: 'Ñandú Pérez',
      preferred_name: 'Ñandú',
      state: 'active',
      created_at: '2025-01-01T00:00:00Z',
    });
    await checkAll(watched, ['name', '-joined_at']);

    // A rename by a second add of the email: the old text is found no more.
    await post('qwerty@example.net', 'Renamed Zoe');
    Object.assign(known.at(-1) as Known, { full_name: 'Renamed Zoe', preferred_name: 'Renamed' });
    await checkAll(watched, ['name', '-joined_at']);

    // A deactivation, then a reactivation by another add.
    const off = await t.request({ method: 'POST', url: `/admin/v0/members/${addedId}/deactivate`, headers: auth });
    assert.equal(off.statusCode, 200, off.body);
    (known.at(-1) as Known).state = 'deactivated';
    await checkAll(watched, ['name']);
    await post('qwerty@example.net', 'Renamed Again');
    Object.assign(known.at(-1) as Known, { full_name: 'Renamed Again', preferred_name: 'Renamed', state: 'active' });
    await checkAll(watched, ['name']);

    // An import that renames, deactivates and forgets stored members, and adds one.
    const changes: Known[] = [
      { ...(known[0] as Known), full_name: 'Ada Lovelace', preferred_name: 'Ada' },
      { ...(known[1] as Known), state: 'deactivated' },
      { ...(known[2] as Known), state: 'forgotten' },
      { ...(known[4] as Known), full_name: 'X_1 Person', preferred_name: 'X_1', email: 'x_1@example.org' },
      {
        id: id(999),
        email: 'new.zoe@example.org',
        full_name: 'Zoé New',
        preferred_name: 'Zoé',
        state: 'active',
        created_at: '2024-01-01T10:00:00Z',
      },
    ];
    await importInto(t, communityId, { members: changes });
    for (const change of changes) {
      const at = known.findIndex((m) => m.id === change.id);
      if (at < 0) known.push(change);
      else known[at] = change;
    }
    await checkAll(watched, ['name', '-name', 'joined_at']);
  });
});
