import assert from 'node:assert/strict';
import { it } from 'node:test';
import { event, importInto } from '../modules/calendar-feeds/fixtures.js';
import { parseJsonOutput, runCli } from '../support/cli.js';
import { describeEachEngine } from '../support/harness.js';

interface FeedLine {
  id: string;
  label: string;
  tag_id: string | null;
  include_unlisted: boolean;
  url: string | null;
  webcal_url: string | null;
}

describeEachEngine('community-admin calendar-feed create|list|revoke', (ctx) => {
  it('creates a feed whose URL serves the events, lists it without its URL, revokes it (then 404)', async () => {
    const app = ctx();
    const { id } = await app.community('free', 'CLI makers');
    await importInto(app, id, {
      calendar_events: [
        event(1, '2026-12-01T18:00:00Z', 3600_000, { title: 'Tagged', publish_to_site: true, tags: [{ id: 't1', label: 'Meetup' }] }),
        event(2, '2026-12-02T18:00:00Z', 3600_000, { title: 'Untagged', publish_to_site: true }),
      ],
    });
    const env = { ...app.testDb.env, PUBLIC_BASE_URL: 'https://events.example.org' };
    const created = await runCli(['calendar-feed', 'create', '--community', id, '--label', 'Meetups', '--tag', 'Meetup', '--json'], env);
    assert.equal(created.code, 0, created.stderr);
    const feed = parseJsonOutput<FeedLine>(created);
    assert.equal(feed.label, 'Meetups');
    assert.equal(feed.tag_id, 't1');
    assert.equal(feed.include_unlisted, false);
    assert.match(feed.url ?? '', /^https:\/\/events\.example\.org\/calendar\/[A-Za-z0-9_-]{43}\.ics$/);
    assert.equal(feed.webcal_url, feed.url?.replace(/^https:/, 'webcal:'));
    const path = new URL(feed.url as string).pathname;
    const served = await app.request({ method: 'GET', url: path });
    assert.equal(served.statusCode, 200);
    assert.ok(served.body.includes('SUMMARY:Tagged') && !served.body.includes('Untagged'));

    const text = await runCli(['calendar-feed', 'create', '--community', id, '--include-unlisted'], env);
    assert.equal(text.code, 0, text.stderr);
    assert.match(
      text.stdout,
      /^Created calendar feed [0-9a-f-]{36}\. Its URL \(shown once; store it now\):\nwebcal:\/\/events\.example\.org\/calendar\/\S+\.ics\nhttps:\/\/events\.example\.org\/calendar\/\S+\.ics\n$/,
    );

    const listed = await runCli(['calendar-feed', 'list', '--community', id, '--json'], env);
    assert.equal(listed.code, 0, listed.stderr);
    const feeds = parseJsonOutput<FeedLine[]>(listed);
    assert.equal(feeds.length, 2);
    assert.ok(
      feeds.every((f) => f.url === null && f.webcal_url === null),
      'a list never shows URLs',
    );
    const table = await runCli(['calendar-feed', 'list', '--community', id], env);
    assert.match(table.stdout, /^id\s+label\s+member_id\s+tag_id\s+include_unlisted\s+created_at\n/);

    const revoked = await runCli(['calendar-feed', 'revoke', feed.id], env);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.equal(revoked.stdout, `Revoked calendar feed ${feed.id}.\n`);
    assert.equal((await app.request({ method: 'GET', url: path })).statusCode, 404);
    const again = await runCli(['calendar-feed', 'revoke', feed.id], env);
    assert.equal(again.code, 1);
    assert.equal(again.stderr, `No live calendar feed ${feed.id}.\n`);
    const unknownTag = await runCli(['calendar-feed', 'create', '--community', id, '--tag', 'Nope'], env);
    assert.equal(unknownTag.code, 1);
    assert.match(unknownTag.stderr, /^tag: no event of the community carries the tag "Nope"/);
  });
});
