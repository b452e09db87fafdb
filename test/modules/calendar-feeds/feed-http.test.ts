import assert from 'node:assert/strict';
import { it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { buildApp } from '../../../src/app.js';
import { createApiKey } from '../../../src/modules/api-keys/api-keys.commands.js';
import { describeEachEngine, type TestApp, testConfig } from '../../support/harness.js';
import type { Envelope } from '../calendar-events/fixtures.js';
import { createFeed, event, feedPath, getFeed, importInto } from './fixtures.js';

const base = { PUBLIC_BASE_URL: 'https://community.example.org' };

async function communityWithEvents(app: TestApp, name: string, titles: string[]) {
  const community = await app.community('enterprise', name);
  await importInto(app, community.id, {
    calendar_events: titles.map((title, i) => event(i + 1, `2026-12-0${i + 1}T18:00:00Z`, 3600_000, { title, publish_to_site: true })),
  });
  return community;
}

describeEachEngine(
  'calendar feeds: HTTP (caching, 304s, revocation, isolation, WIRE_NAMES)',
  (ctx) => {
    it('answers ETag and Last-Modified, 304 on a match, private caching; a change gives a new ETag', async () => {
      const app = ctx();
      const { auth } = await communityWithEvents(app, 'Cached', ['One', 'Two']);
      const feed = await createFeed(app, auth);
      const first = await getFeed(app, feed);
      assert.equal(first.statusCode, 200);
      assert.equal(first.headers['cache-control'], 'private, max-age=300');
      const etag = first.headers.etag as string;
      const lastModified = first.headers['last-modified'] as string;
      assert.match(etag, /^"\d+-[A-Za-z0-9_-]{16}"$/);
      assert.equal(new Date(lastModified).toUTCString(), lastModified);
      const head = await app.request({ method: 'HEAD', url: new URL(feed.url as string).pathname });
      assert.deepEqual([head.statusCode, head.body, head.headers.etag], [200, '', etag]);
      const byTag = await getFeed(app, feed, { 'if-none-match': etag });
      assert.equal(byTag.statusCode, 304);
      assert.equal(byTag.body, '');
      assert.equal(byTag.headers.etag, etag);
      assert.equal((await getFeed(app, feed, { 'if-none-match': `W/${etag}, "other"` })).statusCode, 304);
      assert.equal((await getFeed(app, feed, { 'if-none-match': '"other"' })).statusCode, 200);
      assert.equal((await getFeed(app, feed, { 'if-modified-since': lastModified })).statusCode, 304);
      assert.equal((await getFeed(app, feed, { 'if-modified-since': 'Thu, 01 Jan 2026 00:00:00 GMT' })).statusCode, 200);

      app.clock.advance(60_000);
      const patched = await app.request({
        method: 'PATCH',
        url: '/admin/v0/calendar_events/ev0000000001',
        headers: { ...auth, 'content-type': 'application/json' },
        payload: { title: 'One, renamed' },
      });
      assert.equal(patched.statusCode, 200);
      const changed = await getFeed(app, feed, { 'if-none-match': etag });
      assert.equal(changed.statusCode, 200);
      assert.notEqual(changed.headers.etag, etag);
      assert.ok(Date.parse(changed.headers['last-modified'] as string) > Date.parse(lastModified));
      assert.ok(changed.body.includes('SUMMARY:One\\, renamed'));
      assert.equal((await getFeed(app, feed, { 'if-modified-since': lastModified })).statusCode, 200);
    });

    it('sends gzip to clients that take it (its own ETag, 304 on either), the same text once unzipped', async () => {
      const app = ctx();
      const { auth } = await communityWithEvents(app, 'Zipped', ['One', 'Two']);
      const feed = await createFeed(app, auth);
      const plain = await getFeed(app, feed);
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.equal(plain.headers.vary, 'accept-encoding');
      for (const acceptEncoding of ['gzip, deflate, br', 'br;q=1.0, gzip;q=0.8']) {
        const zipped = await getFeed(app, feed, { 'accept-encoding': acceptEncoding });
        assert.equal(zipped.statusCode, 200);
        assert.equal(zipped.headers['content-encoding'], 'gzip');
        assert.equal(zipped.headers['content-type'], 'text/calendar; charset=utf-8');
        assert.equal(zipped.headers.etag, `${(plain.headers.etag as string).slice(0, -1)}-gzip"`);
        assert.ok(gunzipSync(zipped.rawPayload).equals(plain.rawPayload));
        const again = await getFeed(app, feed, { 'accept-encoding': 'gzip', 'if-none-match': zipped.headers.etag as string });
        assert.equal(again.statusCode, 304);
      }
      assert.equal((await getFeed(app, feed, { 'accept-encoding': 'gzip;q=0, identity' })).headers['content-encoding'], undefined);
      assert.equal(
        (await getFeed(app, feed, { 'accept-encoding': 'gzip', 'if-none-match': plain.headers.etag as string })).statusCode,
        304,
      );
    });

    it('is rendered once per data version and then served from the response cache', async () => {
      const app = ctx();
      const { auth } = await communityWithEvents(app, 'Once', ['One']);
      const feed = await createFeed(app, auth);
      const cache = app.app.services.responses;
      const misses = cache.misses;
      const first = await getFeed(app, feed);
      const second = await getFeed(app, feed);
      const third = await getFeed(app, feed, { 'if-none-match': first.headers.etag as string });
      assert.equal(cache.misses - misses, 1, 'one render');
      assert.equal(second.body, first.body);
      assert.equal(third.statusCode, 304);
      await importInto(app, (await app.community()).id, {}); // another community's write changes nothing here
      await getFeed(app, feed);
      assert.equal(cache.misses - misses, 1);
    });

    it('answers the same 404 for a revoked, an unknown and a malformed token', async () => {
      const app = ctx();
      const { auth } = await communityWithEvents(app, 'Revoked', ['One']);
      const feed = await createFeed(app, auth);
      assert.equal((await getFeed(app, feed)).statusCode, 200);
      const revoked = await app.request({ method: 'DELETE', url: `/admin/v0/calendar_feeds/${feed.id}`, headers: auth });
      assert.equal(revoked.statusCode, 200);
      const gone = await getFeed(app, feed);
      const unknown = await getFeed(app, `/calendar/${'A'.repeat(43)}.ics`);
      const malformed = await getFeed(app, '/calendar/not-a-token.ics');
      for (const res of [gone, unknown, malformed]) {
        assert.equal(res.statusCode, 404);
        assert.deepEqual(
          { ...res.json<Envelope<unknown>>(), error: { ...res.json<Envelope<unknown>>().error, request_id: null } },
          { ...gone.json<Envelope<unknown>>(), error: { ...gone.json<Envelope<unknown>>().error, request_id: null } },
        );
      }
      assert.equal((await app.request({ method: 'DELETE', url: `/admin/v0/calendar_feeds/${feed.id}`, headers: auth })).statusCode, 404);
      const listed = (await app.request({ method: 'GET', url: '/admin/v0/calendar_feeds', headers: auth })).json<Envelope<unknown[]>>()
        .data;
      assert.deepEqual(listed, []);
    });

    it("never shows another community's events, nor lets one community list or revoke another's feeds", async () => {
      const app = ctx();
      const a = await communityWithEvents(app, 'Alpha', ['Alpha picnic', 'Alpha talk']);
      const b = await communityWithEvents(app, 'Beta', ['Beta secret', 'Beta party']);
      const feedA = await createFeed(app, a.auth);
      const feedB = await createFeed(app, b.auth);
      const textA = (await getFeed(app, feedA)).body;
      const textB = (await getFeed(app, feedB)).body;
      assert.ok(textA.includes('Alpha picnic') && !textA.includes('Beta'));
      assert.ok(textB.includes('Beta secret') && !textB.includes('Alpha'));
      const listedByB = (await app.request({ method: 'GET', url: '/admin/v0/calendar_feeds', headers: b.auth })).json<
        Envelope<{ id: string }[]>
      >().data;
      assert.deepEqual(
        listedByB.map((f) => f.id),
        [feedB.id],
      );
      assert.equal((await app.request({ method: 'DELETE', url: `/admin/v0/calendar_feeds/${feedA.id}`, headers: b.auth })).statusCode, 404);
      assert.equal((await getFeed(app, feedA)).statusCode, 200);
    });

    it('is the same text whatever WIRE_NAMES says (the feed is not the API)', async () => {
      const app = ctx();
      const { auth } = await communityWithEvents(app, 'Wire', ['One', 'Two']);
      const feed = await createFeed(app, auth);
      const slack = await buildApp({
        config: testConfig({ ...base, WIRE_NAMES: 'slack' }),
        database: app.database,
        clock: app.clock,
        logger: false,
      });
      try {
        const chat = await getFeed(app, feed);
        const other = await slack.inject({ method: 'GET', url: feedPath(feed) });
        assert.equal(other.statusCode, 200);
        assert.equal(other.body, chat.body);
      } finally {
        await slack.close();
      }
    });

    it('needs calendar_events:write for the feed routes and members:write for a member feed', async () => {
      const app = ctx();
      const { id } = await app.community('enterprise', 'Perms');

      const reader = await createApiKey(
        { database: app.database, clock: app.clock, communityId: id },
        { label: 'reader', permissions: new Set(['calendar_events:read'] as const) },
      );
      const headers = { authorization: `Bearer ${reader.key}` };
      assert.equal((await app.request({ method: 'GET', url: '/admin/v0/calendar_feeds', headers })).statusCode, 403);
      assert.equal(
        (
          await app.request({
            method: 'POST',
            url: '/admin/v0/calendar_feeds',
            headers: { ...headers, 'content-type': 'application/json' },
            payload: {},
          })
        ).statusCode,
        403,
      );
      assert.equal((await app.request({ method: 'POST', url: '/admin/v0/members/x/calendar_feed', headers })).statusCode, 403);
    });
  },
  { env: { ...base, RATE_LIMIT_CALENDAR_PER_SECOND: '100000', RATE_LIMIT_CALENDAR_ADDRESS_PER_SECOND: '100000' } },
);

describeEachEngine(
  'calendar feeds: rate limits per token and per address',
  (ctx) => {
    it('answers 429 with Retry-After past the budget of a token, and of an address across tokens', async () => {
      const app = ctx();
      const { auth } = await communityWithEvents(app, 'Limited', ['One']);
      const feeds = [await createFeed(app, auth), await createFeed(app, auth), await createFeed(app, auth)];
      // The clock stands still: every request is in one window.
      for (let i = 0; i < 3; i++) assert.equal((await getFeed(app, feeds[0] as never, {}, '10.0.0.1')).statusCode, 200);
      const limited = await getFeed(app, feeds[0] as never, {}, '10.0.0.2');
      assert.equal(limited.statusCode, 429, 'the token budget holds from any address');
      assert.equal(limited.headers['retry-after'], '1');
      assert.equal(limited.json<Envelope<unknown>>().error?.code, 'rate_limited');
      assert.match(limited.json<Envelope<unknown>>().error?.message ?? '', /calendar feed/);
      // Another token from a fresh address is within its budgets.
      assert.equal((await getFeed(app, feeds[1] as never, {}, '10.0.0.3')).statusCode, 200);
      // One address: five calendar requests, whatever the tokens (unknown ones too), then 429.
      assert.equal((await getFeed(app, feeds[1] as never, {}, '10.0.0.4')).statusCode, 200);
      assert.equal((await getFeed(app, feeds[2] as never, {}, '10.0.0.4')).statusCode, 200);
      for (let i = 0; i < 3; i++)
        assert.equal((await getFeed(app, `/calendar/${String(i).repeat(43)}.ics`, {}, '10.0.0.4')).statusCode, 404);
      const byAddress = await getFeed(app, feeds[2] as never, {}, '10.0.0.4');
      assert.equal(byAddress.statusCode, 429);
      assert.match(byAddress.json<Envelope<unknown>>().error?.message ?? '', /from this address/);
      app.clock.advance(1000);
      assert.equal((await getFeed(app, feeds[0] as never, {}, '10.0.0.4')).statusCode, 200, 'the next window');
    });
  },
  { env: { ...base, RATE_LIMIT_CALENDAR_PER_SECOND: '3', RATE_LIMIT_CALENDAR_ADDRESS_PER_SECOND: '5' } },
);
