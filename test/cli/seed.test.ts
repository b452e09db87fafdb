import assert from 'node:assert/strict';
import { it } from 'node:test';
import { memberRecord } from '../../src/cli/seed/people.js';
import { countsFor } from '../../src/cli/seed/run-seed.js';
import { SeedWorld } from '../../src/cli/seed/world.js';
import { parseJsonOutput, runCli } from '../support/cli.js';
import { describeEachEngine } from '../support/harness.js';

interface Page {
  total_records: number;
  records: Record<string, unknown>[];
}

// The harness clock stands at 2026-11-21T12:00Z: anchoring the seed on that day puts events on both sides of "now".
const anchor = '2026-11-21T00:00:00Z';

describeEachEngine('community-admin seed', (ctx) => {
  it('seeds a small community through the real bin; the API serves its events, posts and members; a re-run changes nothing', async () => {
    const { id, auth } = await ctx().community('enterprise');
    const args = ['seed', '--community', id, '--size', 'small', '--anchor', anchor, '--json'];
    const seeded = await runCli(args, ctx().testDb.env);
    assert.equal(seeded.code, 0, seeded.stderr);
    const counts = { profiles: 300, members: 300, groups: 6, feeds: 8, posts: 500, calendar_events: 200 };
    assert.deepEqual(parseJsonOutput(seeded), counts);
    assert.match(seeded.stderr, /seed calendar_events: 200\/200/, 'progress goes to stderr');

    const list = async (url: string) => {
      const response = await ctx().request({ method: 'GET', url, headers: auth });
      assert.equal(response.statusCode, 200, response.body);
      return response.json<{ data: Page }>().data;
    };
    const byStatus = await Promise.all(
      ['published', 'draft', 'needs_approval'].map((s) => list(`/admin/v0/calendar_events?time_filter=all&status=${s}`)),
    );
    assert.equal(
      byStatus.reduce((n, page) => n + page.total_records, 0),
      200,
      'every event has one of the three statuses',
    );
    for (const page of byStatus) assert.ok(page.total_records > 0, 'all three statuses occur');
    const upcoming = await list('/admin/v0/calendar_events?per_page=50');
    const past = await list('/admin/v0/calendar_events?time_filter=past&per_page=50');
    assert.ok(upcoming.total_records > 0 && past.total_records > 0, 'events in the past and in the future');
    const events = [...upcoming.records, ...past.records];
    assert.ok(
      events.every((e) => Array.isArray(e.hosts) && e.hosts.length > 0),
      'every event has a host',
    );
    assert.ok(events.some((e) => Array.isArray(e.tags) && e.tags.length > 0));
    assert.ok(events.some((e) => Array.isArray(e.published_to) && e.published_to.length > 0));
    assert.ok(events.some((e) => typeof e.attendees_count === 'number' && e.attendees_count > 0));

    const home = await list('/admin/v0/feeds/home/posts?per_page=50');
    assert.ok(home.total_records > 0 && home.total_records <= 500);
    const post = home.records[0] as {
      feed_id: string;
      body_plaintext: string;
      chat_message: { blocks: unknown[] };
      author: { profile_id: string };
    };
    assert.ok(post.chat_message.blocks.length > 0 && post.body_plaintext.length > 0 && post.author.profile_id);
    const feed = await ctx().request({ method: 'GET', url: `/admin/v0/feeds/${post.feed_id}`, headers: auth });
    assert.equal(feed.statusCode, 200, feed.body);

    // The generator is deterministic (seed: the community id): it says which members exist.
    const world = new SeedWorld({ seed: id, anchor: Date.parse(anchor), counts: countsFor('small', {}) });
    const active = Array.from({ length: 300 }, (_, i) => memberRecord(world, i)).find((m) => m.state === 'active');
    assert.ok(active);
    const check = await ctx().request({ method: 'POST', url: '/admin/v0/members/check', headers: auth, payload: { email: active.email } });
    assert.equal(check.statusCode, 200, check.body);
    assert.deepEqual(check.json<{ data: unknown }>().data, { is_member: true, is_deactivated: false, is_forgotten: false });

    const again = await runCli(args, ctx().testDb.env);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(await list('/admin/v0/calendar_events?per_page=50'), upcoming, 'the same seed upserts the same records');
  });

  it('refuses an unknown community (exit 1) and a bad size (exit 2)', async () => {
    const unknown = await runCli(['seed', '--community', 'nope', '--json'], ctx().testDb.env);
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stdout, '');
    const badSize = await runCli(['seed', '--community', 'nope', '--size', 'huge'], ctx().testDb.env);
    assert.equal(badSize.code, 2);
  });
});
