import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runSeed } from '../../src/cli/seed/run-seed.js';
import { createCommunity } from '../../src/modules/communities/communities.commands.js';
import { runCli } from '../support/cli.js';
import {
  TestClock as Clock,
  createTestDatabase,
  describeEachEngine,
  postgresSkipReason,
  type TestClock,
  type TestDatabase,
} from '../support/harness.js';
import { feedId, memberId, profileId, richCommunity } from './rich-community.js';
import { apiAnswers, assertLogCarried, assertSameAnswers, dataOf, exportText, firstDifference, importText } from './round-trip-support.js';

type Json = Record<string, unknown>;

const anchor = Date.parse('2026-11-21T00:00:00Z');
// Small enough for every run of the suite; test/export/round-trip-10k.long.ts (npm run test:export-10k) runs 10k events.
const seedCounts = { profiles: 120, members: 120, groups: 4, feeds: 6, posts: 300, events: 300 };

/** The records of one section of an export, parsed. */
const section = (text: string, name: string): Json[] => (JSON.parse(text) as Record<string, Json[]>)[name] ?? [];
const byId = (records: Json[], key = 'id') => new Map(records.map((r) => [String(r[key]), r]));

describeEachEngine('export: the round trip keeps everything', (ctx) => {
  let source: { id: string; auth: { authorization: string } };
  let exported: string;

  before(async () => {
    const app = ctx();
    source = await app.community('enterprise', 'Source');
    await importText(app.database, app.clock, source.id, JSON.stringify(richCommunity()));
    await runSeed(app.database, app.clock, { communityId: source.id, seed: 'round-trip', anchor, counts: seedCounts });
    // Later writes happen at a later time: timestamps the import fills in differ from the clock of the copy.
    app.clock.advance(3_600_000);
    exported = await exportText(app.database, source.id);
  });

  it('export, import into an empty community, export again: the two files are byte-identical and the API answers the same', async () => {
    const app = ctx();
    const copy = await app.community('enterprise', 'Copy');
    app.clock.advance(86_400_000);
    await importText(app.database, app.clock, copy.id, exported);
    const again = await exportText(app.database, copy.id);
    assert.ok(dataOf(again) === dataOf(exported), `the second export differs at ${firstDifference(exported, again)}`);
    assertLogCarried(exported, again);
    assertSameAnswers(await apiAnswers(app, source.auth), await apiAnswers(app, copy.auth));
  });

  it('the file holds every section in a fixed order, records by id, one per line, and no community id', () => {
    const lines = exported.split('\n');
    const names = lines.filter((line) => /^"[a-z_]+": \[/.test(line)).map((line) => line.slice(1, line.indexOf('"', 1)));
    assert.deepEqual(names, ['files', 'profiles', 'members', 'groups', 'feeds', 'posts', 'calendar_events', 'awards', 'activities']);
    const awards = (JSON.parse(exported) as Record<string, Json[]>).awards ?? [];
    assert.deepEqual(
      awards.map((award) => [award.id, (award.assignments as Json[]).map((a) => a.profile_id)]),
      [
        ['e0000000-0000-4000-8000-000000000001', []],
        ['e0000000-0000-4000-8000-000000000002', [profileId(1), profileId(3)]],
      ],
    );
    assert.deepEqual((awards[1]?.assignments as Json[])[1], {
      profile_id: profileId(3),
      sender_profile_id: profileId(1),
      send_anonymously: true,
      assigned_at: '2025-02-01T00:00:00+00:00',
    });
    const document = JSON.parse(exported) as Record<string, Json[]>;
    assert.equal(document.calendar_events?.length, 303);
    assert.equal(document.posts?.length, 304);
    for (const [name, records] of Object.entries(document)) {
      // The log is in chain order (the order its hashes follow), not by id.
      if (name === 'activities') continue;
      const ids = records.map((r) => String(r.id ?? r.profile_id));
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
        `${name} in byte order of id`,
      );
    }
    assert.ok(!exported.includes(source.id), 'the community id does not appear (records about the community name it by type only)');
    // Two lines per section with records, one for the empty files section, three for the braces.
    assert.equal(lines.length, Object.values(document).reduce((n, records) => n + records.length, 0) + 8 * 2 + 1 + 3);
  });

  it('carries members and their states, groups, hosts and speakers in order, attendees and their join links, tags and timestamps', () => {
    const members = byId(section(exported, 'members'));
    assert.equal(members.get(memberId(2))?.state, 'deactivated');
    assert.equal(members.get(memberId(2))?.preferred_name, 'Amazing Grace');
    assert.equal(members.get(memberId(3))?.state, 'forgotten');
    assert.equal(members.get(memberId(1))?.chat_profile_id, profileId(1));
    assert.equal(members.get(memberId(1))?.created_at, '2026-11-21T12:00:00+00:00', 'created_at of the member, taken at the first import');
    const groups = byId(section(exported, 'groups'));
    assert.deepEqual(groups.get('speakers')?.member_profile_ids, [profileId(1), profileId(3)]);
    assert.deepEqual(groups.get('Empty-Group')?.member_profile_ids, []);
    const event = byId(section(exported, 'calendar_events')).get('EvtRich00001') as Json;
    assert.deepEqual(event.host_profile_ids, [profileId(4), profileId(1)]);
    assert.deepEqual(event.speaker_profile_ids, [profileId(3), profileId(2), profileId(1)]);
    const attendees = event.attendees as Json[];
    assert.deepEqual(
      attendees.map((a) => [a.profile_id, a.personal_join_link]),
      [
        [profileId(1), null],
        [profileId(2), null],
        [profileId(3), 'https://meet.example.com/j/3'],
      ],
    );
    assert.deepEqual(
      (event.tags as Json[]).map((t) => [t.id, t.created_at]),
      [
        ['topic-ai', '2025-01-01T00:00:00+00:00'],
        ['Format Talk', '2026-10-01T08:00:00.123456+00:00'],
      ],
    );
    assert.deepEqual(event.reminders_config, [{ minutes: 1440 }, { minutes: 15 }]);
    assert.equal(event.end_date, '2026-12-01T20:30:00.25+00:00');
    const draft = byId(section(exported, 'calendar_events')).get('evtdraft0002') as Json;
    assert.equal(draft.end_date, null);
    assert.equal(draft.description_chat_blocks, null);
    const post = byId(section(exported, 'posts')).get('post-1') as Json;
    // Slack's ts is kept as its text (given as a number here, which reads the same).
    assert.equal(String((post.chat_message as Json).message_ts), '1747250195.525399');
    assert.deepEqual(
      (post.chat_message as Json).blocks,
      (richCommunity().posts as Json[])[0]?.chat_message && ((richCommunity().posts as Json[])[0]?.chat_message as Json).blocks,
    );
    assert.equal(post.reactions_count, 7);
    const feeds = byId(section(exported, 'feeds'));
    assert.equal(feeds.get(feedId(3))?.is_archived, true);
    assert.equal(feeds.get(feedId(2))?.is_unlisted, true);
  });

  it('importing the export into the community it came from changes nothing', async () => {
    const app = ctx();
    app.clock.advance(86_400_000);
    await importText(app.database, app.clock, source.id, exported);
    const again = await exportText(app.database, source.id);
    assert.ok(dataOf(again) === dataOf(exported), `the export after a re-import differs at ${firstDifference(exported, again)}`);
    assertLogCarried(exported, again);
  });

  it('the bin writes the same file to stdout, or to --out, with progress on stderr; an unknown community is a user error', async () => {
    const app = ctx();
    const stdout = await runCli(['export', '--community', source.id], app.testDb.env);
    assert.equal(stdout.code, 0, stdout.stderr);
    // The re-import above added its import.completed to the log.
    const now = await exportText(app.database, source.id);
    assert.ok(stdout.stdout === now, 'stdout is the export');
    assertLogCarried(exported, now);
    assert.match(stdout.stderr, /export calendar_events: 303/);
    const dir = mkdtempSync(join(tmpdir(), 'export-test-'));
    try {
      const out = join(dir, 'community.json');
      const file = await runCli(['export', '--community', source.id, '--out', out], app.testDb.env);
      assert.equal(file.code, 0, file.stderr);
      assert.equal(file.stdout, '', 'nothing on stdout with --out');
      assert.ok(readFileSync(out, 'utf8') === now);
      const unknown = await runCli(['export', '--community', '00000000-0000-4000-8000-000000000000'], app.testDb.env);
      assert.equal(unknown.code, 1);
      assert.equal(unknown.stdout, '');
      assert.match(unknown.stderr, /community/i);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('export: SQLite → PostgreSQL → SQLite', { skip: postgresSkipReason }, () => {
  const databases: TestDatabase[] = [];
  after(async () => {
    for (const database of databases) await database.drop();
  });

  it('gives the same file on each engine after each move', async () => {
    const clock: TestClock = new Clock();
    const open = async (engine: 'sqlite' | 'postgres') => {
      const database = await createTestDatabase(engine);
      databases.push(database);
      const community = await createCommunity({ database: database.database, clock }, { name: 'Moved', plan: 'enterprise' });
      return { database: database.database, id: community.id };
    };
    const first = await open('sqlite');
    await importText(first.database, clock, first.id, JSON.stringify(richCommunity()));
    await runSeed(first.database, clock, { communityId: first.id, seed: 'across', anchor, counts: seedCounts });
    const fromSqlite = await exportText(first.database, first.id);
    clock.advance(60_000);
    const second = await open('postgres');
    await importText(second.database, clock, second.id, fromSqlite);
    const fromPostgres = await exportText(second.database, second.id);
    assert.ok(dataOf(fromPostgres) === dataOf(fromSqlite), `SQLite → PostgreSQL differs at ${firstDifference(fromSqlite, fromPostgres)}`);
    assertLogCarried(fromSqlite, fromPostgres);
    clock.advance(60_000);
    const third = await open('sqlite');
    await importText(third.database, clock, third.id, fromPostgres);
    const back = await exportText(third.database, third.id);
    assert.ok(dataOf(back) === dataOf(fromSqlite), `PostgreSQL → SQLite differs at ${firstDifference(fromSqlite, back)}`);
    assertLogCarried(fromPostgres, back);
  });
});
