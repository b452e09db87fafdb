import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, it } from 'node:test';
import { DeliveryWorker } from '../../src/modules/webhooks/worker/deliveries.js';
import { addMillis, durationMs, microsFromMillis, subtractMillis } from '../../src/shared/time.js';
import { collectingLog, emitRoute } from '../modules/webhooks/webhook-test-kit.js';
import { describeEachEngine } from '../support/harness.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { holdSqliteWriteLock, promtoolCheck, sample, samples } from './metrics-kit.js';

const token = 'metrics-token-0123456789abcdef';
const route = emitRoute();

describeEachEngine(
  'GET /metrics with METRICS_TOKEN',
  (ctx) => {
    let base = '';
    const receiver = new WebhookReceiver();
    before(async () => {
      await receiver.start();
      base = await ctx().app.listen({ port: 0, host: '127.0.0.1' });
    });
    after(() => receiver.stop());

    /** A real HTTP request to the listening app. */
    const call = (path: string, init: RequestInit = {}) => fetch(`${base}${path}`, init);
    const scrape = async (): Promise<string> => {
      const answer = await call('/metrics', { headers: { authorization: `Bearer ${token}` } });
      assert.equal(answer.status, 200);
      assert.match(answer.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
      return answer.text();
    };
    const json = (auth: Record<string, string>, extra: Record<string, string> = {}) => ({
      ...auth,
      'content-type': 'application/json',
      ...extra,
    });

    it('refuses a scrape without the token or with another one, in the API error envelope', async () => {
      for (const headers of [{}, { authorization: 'Bearer not-the-metrics-token-at-all' }, { authorization: token }] as Record<
        string,
        string
      >[]) {
        const answer = await call('/metrics', { headers });
        assert.equal(answer.status, 401);
        const body = (await answer.json()) as { success: boolean; error: { code: string } };
        assert.equal(body.error.code, 'unauthorized');
      }
    });

    it('times requests by route template, method and status class, never by raw path', async () => {
      const { auth } = await ctx().community();
      for (let i = 0; i < 3; i++) assert.equal((await call('/admin/v0/calendar_events', { headers: auth })).status, 200);
      assert.equal((await call('/admin/v0/calendar_events/AbCdEf123456', { headers: auth })).status, 404);
      assert.equal((await call('/no/such/path-7f3a')).status, 404);
      const text = await scrape();
      const listed = sample(text, 'community_admin_http_request_duration_seconds_count', {
        route: '/admin/v0/calendar_events',
        method: 'GET',
        status_class: '2xx',
      });
      assert.ok(listed !== undefined && listed >= 3, `list requests counted: ${listed}`);
      const missing = { route: '/admin/v0/calendar_events/:calendar_event_id', method: 'GET', status_class: '4xx' };
      assert.equal(sample(text, 'community_admin_http_request_duration_seconds_count', missing), 1);
      assert.ok(
        sample(text, 'community_admin_http_request_duration_seconds_count', { route: 'unmatched', method: 'GET', status_class: '4xx' }),
      );
      assert.equal(text.includes('AbCdEf123456'), false, 'an id never becomes a label value');
      assert.equal(text.includes('path-7f3a'), false, 'a raw path never becomes a label value');
      assert.ok(sample(text, 'process_resident_memory_bytes'), "Node's default process metrics are there");
      assert.equal(/^nodejs_active_\w+_total /m.test(text), false, 'no gauge named *_total');
    });

    it('counts 429s by budget, idempotent replays and conflicts, and cache hits and misses', async () => {
      const { auth } = await ctx().community();
      const answers = await Promise.all(Array.from({ length: 25 }, () => call('/admin/v0/calendar_events', { headers: auth })));
      const refused = answers.filter((answer) => answer.status === 429).length;
      assert.ok(refused >= 5, `the budget of 20 refused ${refused} of 25`);
      ctx().clock.advance(1000);
      const key = randomUUID();
      const post = (body: unknown) =>
        call('/admin/v0/test/webhook-events', {
          method: 'POST',
          headers: json(auth, { 'idempotency-key': key }),
          body: JSON.stringify(body),
        });
      assert.equal((await post({ events: [] })).status, 200);
      const replay = await post({ events: [] });
      assert.equal(replay.headers.get('x-idempotent-replayed'), 'true');
      assert.equal((await post({ events: [], fail: false })).status, 422);
      ctx().clock.advance(1000);
      const text = await scrape();
      assert.equal(sample(text, 'community_admin_rate_limit_rejections_total', { policy: 'key' }), refused);
      assert.equal(sample(text, 'community_admin_idempotency_outcomes_total', { outcome: 'replayed' }), 1);
      assert.equal(sample(text, 'community_admin_idempotency_outcomes_total', { outcome: 'mismatch' }), 1);
      // The caches: a page asked twice is computed once, then answered from memory; computing it looked its total up once.
      const cache = (text: string, name: string, result: string) =>
        sample(text, 'community_admin_cache_requests_total', { cache: name, result }) ?? 0;
      const before = await scrape();
      for (let i = 0; i < 2; i++) assert.equal((await call('/admin/v0/calendar_events?per_page=7', { headers: auth })).status, 200);
      const after = await scrape();
      assert.equal(cache(after, 'response', 'miss') - cache(before, 'response', 'miss'), 1);
      assert.equal(cache(after, 'response', 'hit') - cache(before, 'response', 'hit'), 1);
      const lookups = (text: string) => cache(text, 'count', 'hit') + cache(text, 'count', 'miss');
      assert.equal(lookups(after) - lookups(before), 1);
    });

    it('reads the webhook backlog and its age at scrape time, and counts attempts by outcome', async () => {
      ctx().clock.set(Date.now());
      const { auth } = await ctx().community();
      const subscribed = await call('/admin/v0/webhook_endpoints', {
        method: 'POST',
        headers: json(auth),
        body: JSON.stringify({ url: receiver.url }),
      });
      assert.equal(subscribed.status, 201);
      const events = [{ type: 'member.created', data: { id: 'm1' } }];
      assert.equal(
        (await call('/admin/v0/test/webhook-events', { method: 'POST', headers: json(auth), body: JSON.stringify({ events }) })).status,
        200,
      );
      ctx().clock.advance(90_000);
      let text = await scrape();
      assert.equal(sample(text, 'community_admin_webhook_backlog'), 1);
      assert.equal(sample(text, 'community_admin_webhook_oldest_pending_age_seconds'), 90);
      assert.equal(sample(text, 'community_admin_webhook_endpoints_disabled'), 0);
      // The receiver is gone for good: its endpoint is disabled at the first answer.
      receiver.fallback = 410;
      const worker = new DeliveryWorker({
        database: ctx().database,
        clock: ctx().clock,
        log: collectingLog(),
        allowPrivate: true,
        timeoutMs: durationMs(2000),
        metrics: ctx().app.services.metrics,
      });
      assert.equal(await worker.tick(), 1);
      ctx().clock.advance(1000);
      text = await scrape();
      assert.equal(sample(text, 'community_admin_webhook_delivery_attempts_total', { outcome: 'endpoint_disabled' }), 1);
      assert.equal(sample(text, 'community_admin_webhook_endpoints_disabled'), 1);
      assert.equal(sample(text, 'community_admin_webhook_backlog'), 0);
      assert.equal(sample(text, 'community_admin_webhook_oldest_pending_age_seconds'), 0);
    });

    it('reads the Slack event queue and backfill progress at scrape time', async () => {
      const { id } = await ctx().community();
      const now = ctx().clock.now();
      const { db } = ctx().database;
      // Rows as a delivery of POST /chat/events and a backfill leave them (their own tests drive those); leased, so no worker takes them.
      await db
        .insertInto('chat_event_queue')
        .values(
          [0, 1].map((n) => ({
            community_id: id,
            event_id: `Ev${n}`,
            event_type: 'message',
            body: '{}',
            received_at: subtractMillis(now, durationMs(30_000 * (n + 1))),
            attempts: 0,
            lease_until: addMillis(now, durationMs(3_600_000)),
            applied_at: null,
            last_error: null,
          })),
        )
        .execute();
      await db
        .insertInto('chat_sync_checkpoints')
        .values([
          { community_id: id, scope: 'users', cursor: '', done: 1, items: 120, updated_at: microsFromMillis(now) },
          { community_id: id, scope: 'history:C1', cursor: 'next', done: 0, items: 400, updated_at: microsFromMillis(now) },
        ])
        .execute();
      ctx().clock.advance(1000);
      const text = await scrape();
      assert.equal(sample(text, 'community_admin_chat_event_queue_depth'), 2);
      assert.equal(sample(text, 'community_admin_chat_event_queue_oldest_age_seconds'), 61);
      assert.equal(sample(text, 'community_admin_chat_backfill_scopes', { state: 'done' }), 1);
      assert.equal(sample(text, 'community_admin_chat_backfill_scopes', { state: 'in_progress' }), 1);
      assert.equal(sample(text, 'community_admin_chat_backfill_items'), 520);
      await db.deleteFrom('chat_event_queue').where('community_id', '=', id).execute();
    });

    it("shows the database's saturation: the pool (PostgreSQL) or waits for the write lock (SQLite)", async (t) => {
      const { auth } = await ctx().community();
      if (ctx().engine === 'postgres') {
        const text = await scrape();
        assert.equal(sample(text, 'community_admin_db_pool_connections', { state: 'max' }), 5);
        assert.equal(sample(text, 'community_admin_db_pool_waiting'), 0);
        assert.ok(sample(text, 'community_admin_db_pool_connections', { state: 'in_use' }) !== undefined);
        return;
      }
      const before = sample(await scrape(), 'community_admin_sqlite_write_lock_waits_total') ?? 0;
      // Another process (as the CLI would) holds the write lock for 300 ms while the API writes.
      const release = await holdSqliteWriteLock(ctx().testDb.url.slice('sqlite:'.length), 300);
      const write = await call('/admin/v0/test/webhook-events', {
        method: 'POST',
        headers: json(auth),
        body: JSON.stringify({ events: [] }),
      });
      await release.ended;
      assert.equal(write.status, 200);
      const text = await scrape();
      assert.ok((sample(text, 'community_admin_sqlite_write_lock_waits_total') ?? 0) >= before + 1);
      const waited = sample(text, 'community_admin_sqlite_write_lock_wait_seconds_total') ?? 0;
      assert.ok(waited >= 0.1, `waited ${waited} s`);
      t.diagnostic(`the write waited ${waited.toFixed(3)} s for the lock`);
    });

    it('writes text that promtool accepts', async (t) => {
      const text = await scrape();
      assert.ok(samples(text).length > 50);
      const problem = promtoolCheck(text);
      if (problem === null) t.skip('promtool is not installed: apt-get install prometheus (.ci/run does) to run this check');
      else assert.equal(problem, '', problem);
    });
  },
  { env: { METRICS_TOKEN: token, RATE_LIMIT_PER_SECOND: '20', WEBHOOK_ALLOW_PRIVATE: 'true' }, beforeReady: route.register },
);

describeEachEngine('without METRICS_TOKEN or METRICS_PORT', (ctx) => {
  it('serves no /metrics and records nothing', async () => {
    const answer = await ctx().request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${token}` } });
    assert.equal(answer.statusCode, 404);
    assert.equal(ctx().app.services.metrics.registry, null);
  });
});
