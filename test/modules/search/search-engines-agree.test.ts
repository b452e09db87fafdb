// The same corpus on SQLite and on PostgreSQL answers every query with the same posts in the same
// order and the same totals (docs/search.md: the ranking is computed from match facts both engines
// give alike). Needs both engines: skipped, saying why, without TEST_DATABASE_URL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runImport } from '../../../src/import/run-import.js';
import { feed, post, profile, profileId } from '../../support/feed-fixtures.js';
import { postgresSkipReason, startTestApp, type TestApp } from '../../support/harness.js';
import { authorName, postText, wordOfRank } from '../../support/search-corpus.js';

const posts = 600;
const authors = 12;

function corpus() {
  const names = Array.from({ length: authors }, (_, i) => authorName(i));
  return {
    profiles: names.map((name, i) => profile(i + 1, { preferred_name: name })),
    feeds: [feed(1), feed(2), feed(3, { is_archived: true })],
    posts: Array.from({ length: posts }, (_, i) => {
      const { title, body } = postText('agree', i, names);
      // Minutes repeat, so that ties of latest_activity_at break by id.
      const iso = new Date(Date.parse('2026-01-01T00:00:00Z') + (i % 97) * 60_000).toISOString();
      return post(i + 1, 1 + (i % 3), {
        title,
        body_plaintext: body,
        author_profile_id: profileId(1 + (i % authors)),
        content_created_at: iso,
        latest_activity_at: iso,
      });
    }),
  };
}

const queries = [
  ...[0, 1, 5, 9, 12, 20, 21, 27, 29, 30, 33, 36, 40, 45, 60, 77, 88, 99, 150, 400].map(wordOfRank),
  `${wordOfRank(0)} ${wordOfRank(10)}`,
  `${wordOfRank(11)} ${wordOfRank(14)} ${wordOfRank(3)}`,
  `"${wordOfRank(0)} ${wordOfRank(1)}"`,
  `"${wordOfRank(0)} ${wordOfRank(2)} ${wordOfRank(0)}"`,
  `"${wordOfRank(1)} ${wordOfRank(0).slice(0, 2)}"*`,
  `${wordOfRank(10)} -${wordOfRank(0)}`,
  `${wordOfRank(12)} -"${wordOfRank(0)} ${wordOfRank(2)}"`,
  `${wordOfRank(41).slice(0, 2)}*`,
  `${wordOfRank(43).slice(0, 3)}*`,
  'cafe',
  'naive',
  'ZURICH',
  'ПРИВЕТ',
  'καλημερα',
  '東',
  'ワ',
  'zoe angstrom',
  'lukasz',
  'tada',
  'example com',
  '"getting started"',
  'project OR release',
  'team:*',
];

describe('search: SQLite and PostgreSQL agree on the same corpus', { skip: postgresSkipReason }, () => {
  let sqlite: TestApp;
  let postgres: TestApp;
  const keys = new Map<TestApp, { authorization: string }>();

  before(async () => {
    sqlite = await startTestApp('sqlite');
    postgres = await startTestApp('postgres');
    for (const app of [sqlite, postgres]) {
      const community = await app.community();
      await runImport({ database: app.database, clock: app.clock, communityId: community.id }, corpus());
      keys.set(app, community.auth);
    }
  });
  after(async () => {
    for (const app of [sqlite, postgres]) {
      await app?.app.close();
      await app?.testDb.drop();
    }
  });

  const answer = async (app: TestApp, q: string, page: number) => {
    const res = await app.request({
      method: 'GET',
      url: `/admin/v0/search?q=${encodeURIComponent(q)}&per_page=50&page=${page}`,
      headers: keys.get(app),
    });
    assert.equal(res.statusCode, 200, res.body);
    const data = res.json<{ data: { total_records: number; records: { id: string }[] } }>().data;
    return { total: data.total_records, ids: data.records.map((record) => record.id) };
  };

  it('finds the same posts in the same order, with the same totals, for every query', async () => {
    let nonEmpty = 0;
    for (const q of queries) {
      for (const page of [0, 1]) {
        const [a, b] = [await answer(sqlite, q, page), await answer(postgres, q, page)];
        assert.deepEqual(b, a, `${q} (page ${page})`);
        if (page === 0 && a.total > 0) nonEmpty++;
      }
    }
    assert.ok(nonEmpty >= queries.length - 3, `${nonEmpty} of ${queries.length} queries find something`);
  });
});
