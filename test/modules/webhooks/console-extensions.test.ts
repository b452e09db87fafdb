/**
 * The console's webhook extensions (issue 39) over HTTP: PATCH /webhook_endpoints/{id} (disable,
 * enable, events, url), GET /webhook_event_types, the deliveries' status filter with exact totals,
 * and POST /webhook_endpoints/{id}/redeliver_failed with its cap, against a real receiver.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, it } from 'node:test';
import { createApiKey } from '../../../src/modules/api-keys/api-keys.commands.js';
import { redeliverFailedCap } from '../../../src/modules/webhooks/commands/deliveries.js';
import { webhookEventTypes } from '../../../src/modules/webhooks/rules/event-types.js';
import { DeliveryWorker } from '../../../src/modules/webhooks/worker/deliveries.js';
import { permissions } from '../../../src/shared/permissions.js';
import { durationMs } from '../../../src/shared/time.js';
import { describeEachEngine, type TestApp } from '../../support/harness.js';
import { WebhookReceiver } from '../../support/webhook-receiver.js';
import { collectingLog, emitRoute } from './webhook-test-kit.js';

interface Endpoint {
  id: string;
  url: string;
  events: string[] | null;
  disabled: boolean;
  disabled_at: string | null;
  disabled_reason: string | null;
}

interface Delivery {
  id: string;
  type: string;
  status: string;
  last_error: string | null;
  attempt_log: { attempted_at: string; status: number | null; duration_ms: number; error: string | null }[];
}

interface Page {
  count: number;
  total_records: number;
  total_pages: number;
  has_next: boolean;
  records: Delivery[];
}

const route = emitRoute();

describeEachEngine(
  'webhook console extensions',
  (ctx) => {
    const receiver = new WebhookReceiver();
    let worker: DeliveryWorker;
    before(() => receiver.start());
    after(() => receiver.stop());
    beforeEach(() => {
      receiver.reset();
      ctx().clock.set(Date.now());
      worker = new DeliveryWorker({
        database: ctx().database,
        clock: ctx().clock,
        log: collectingLog(),
        allowPrivate: true,
        timeoutMs: durationMs(1000),
        random: () => 0.5,
      });
    });

    /** Ticks the worker until nothing is due. */
    const drain = async () => {
      for (let i = 0; i < 100; i++) if ((await worker.tick()) === 0) return;
      assert.fail('the worker never ran out of work');
    };

    async function subscribe(app: TestApp, events?: string[]) {
      const community = await app.community();
      const answer = await app.request({
        method: 'POST',
        url: '/admin/v0/webhook_endpoints',
        headers: community.auth,
        payload: { url: receiver.url, ...(events ? { events } : {}) },
      });
      assert.equal(answer.statusCode, 201, answer.body);
      const endpoint = answer.json<{ data: { id: string; secret: string } }>().data;
      receiver.secrets = [endpoint.secret];
      return { ...community, endpoint };
    }

    const patch = (auth: Record<string, string>, id: string, payload: Record<string, unknown>) =>
      ctx().request({ method: 'PATCH', url: `/admin/v0/webhook_endpoints/${id}`, headers: auth, payload });
    const emit = (auth: Record<string, string>, types: string[]) =>
      ctx().request({
        method: 'POST',
        url: '/admin/v0/test/webhook-events',
        headers: auth,
        payload: { events: types.map((type, i) => ({ type, data: { id: `${type}-${i}` } })) },
      });
    const deliveries = async (auth: Record<string, string>, id: string, query: string) => {
      const answer = await ctx().request({ method: 'GET', url: `/admin/v0/webhook_endpoints/${id}/deliveries?${query}`, headers: auth });
      assert.equal(answer.statusCode, 200, answer.body);
      return answer.json<{ data: Page }>().data;
    };
    const listed = async (auth: Record<string, string>) =>
      (await ctx().request({ method: 'GET', url: '/admin/v0/webhook_endpoints', headers: auth })).json<{ data: Endpoint[] }>().data;
    const redeliverFailed = (auth: Record<string, string>, id: string, since: unknown) =>
      ctx().request({ method: 'POST', url: `/admin/v0/webhook_endpoints/${id}/redeliver_failed`, headers: auth, payload: { since } });

    it('lists the closed list of event types, each with a one-line description', async () => {
      const { auth, id } = await ctx().community();
      const answer = await ctx().request({ method: 'GET', url: '/admin/v0/webhook_event_types', headers: auth });
      assert.equal(answer.statusCode, 200, answer.body);
      const types = answer.json<{ data: { type: string; description: string }[] }>().data;
      assert.deepEqual(
        types.map((t) => t.type),
        [...webhookEventTypes],
      );
      for (const t of types) assert.match(t.description, /^[A-Z].{10,}\.$/, t.type);
      const scoped = await createApiKey(
        { database: ctx().database, clock: ctx().clock, communityId: id },
        { label: 'no webhooks', permissions: new Set(permissions.filter((p) => p !== 'webhooks:write')) },
      );
      const refused = await ctx().request({
        method: 'GET',
        url: '/admin/v0/webhook_event_types',
        headers: { authorization: `Bearer ${scoped.key}` },
      });
      assert.equal(refused.statusCode, 403);
      assert.equal(refused.json<{ error: { code: string } }>().error.code, 'insufficient_scope');
    });

    it('disables an endpoint (it receives nothing, listed with its state), enables it, and redelivers what failed meanwhile', async () => {
      const { auth, endpoint } = await subscribe(ctx());
      // Two events while it is active: deliveries pending, not sent yet.
      assert.equal((await emit(auth, ['member.created', 'member.updated'])).statusCode, 200);
      const disabled = await patch(auth, endpoint.id, { enabled: false });
      assert.equal(disabled.statusCode, 200, disabled.body);
      const record = disabled.json<{ data: Endpoint }>().data;
      assert.equal(record.disabled, true);
      assert.equal(record.disabled_reason, 'disabled by an operator');
      assert.equal(record.disabled_at, new Date(ctx().clock.now()).toISOString());
      assert.equal('community_id' in record, false);
      assert.deepEqual(
        (await listed(auth)).map((e) => [e.id, e.disabled, e.disabled_reason]),
        [[endpoint.id, true, 'disabled by an operator']],
      );

      // An event while it is disabled is not for it at all; the pending ones fail unsent.
      assert.equal((await emit(auth, ['group.member_added'])).statusCode, 200);
      await drain();
      assert.equal(receiver.received.length, 0);
      assert.equal((await deliveries(auth, endpoint.id, '')).total_records, 2);
      const failed = await deliveries(auth, endpoint.id, 'status=failed');
      assert.equal(failed.total_records, 2);
      assert.deepEqual(failed.records.map((d) => [d.type, d.last_error, d.attempt_log.length]).sort(), [
        ['member.created', 'endpoint disabled', 0],
        ['member.updated', 'endpoint disabled', 0],
      ]);
      const test = await ctx().request({
        method: 'POST',
        url: `/admin/v0/webhook_endpoints/${endpoint.id}/test`,
        headers: auth,
        payload: {},
      });
      assert.equal(test.statusCode, 409);
      const refused = await redeliverFailed(auth, endpoint.id, new Date(0).toISOString());
      assert.equal(refused.statusCode, 409);
      assert.equal(refused.json<{ error: { code: string } }>().error.code, 'webhook_endpoint_disabled');

      const enabled = await patch(auth, endpoint.id, { enabled: true });
      assert.equal(enabled.statusCode, 200, enabled.body);
      assert.deepEqual(
        (({ disabled, disabled_at, disabled_reason }) => ({ disabled, disabled_at, disabled_reason }))(
          enabled.json<{ data: Endpoint }>().data,
        ),
        { disabled: false, disabled_at: null, disabled_reason: null },
      );
      const queued = await redeliverFailed(auth, endpoint.id, new Date(ctx().clock.now() - 60_000).toISOString());
      assert.equal(queued.statusCode, 200, queued.body);
      assert.deepEqual(queued.json<{ data: Record<string, unknown> }>().data, {
        endpoint_id: endpoint.id,
        since: new Date(ctx().clock.now() - 60_000).toISOString(),
        queued: 2,
        remaining: 0,
      });
      assert.equal((await deliveries(auth, endpoint.id, 'status=pending')).total_records, 2);
      await drain();
      assert.deepEqual(receiver.received.map((r) => r.payload.type).sort(), ['member.created', 'member.updated']);
      for (const request of receiver.received) assert.deepEqual(request.verifiedWith, [endpoint.secret]);
      const delivered = await deliveries(auth, endpoint.id, 'status=delivered');
      assert.equal(delivered.total_records, 2);
      for (const d of delivered.records) {
        assert.equal(d.attempt_log.length, 1);
        assert.equal(d.attempt_log[0]?.status, 200);
        assert.ok((d.attempt_log[0]?.duration_ms ?? -1) >= 0);
        assert.match(d.attempt_log[0]?.attempted_at ?? '', /^\d{4}-\d\d-\d\dT/);
      }
    });

    it("changes an endpoint's event types and URL; the same values again change nothing", async () => {
      const { auth, endpoint } = await subscribe(ctx());
      const narrowed = await patch(auth, endpoint.id, { events: ['member.created'] });
      assert.equal(narrowed.statusCode, 200, narrowed.body);
      assert.deepEqual(narrowed.json<{ data: Endpoint }>().data.events, ['member.created']);
      await emit(auth, ['group.member_added', 'member.created']);
      await drain();
      assert.deepEqual(
        receiver.received.map((r) => r.payload.type),
        ['member.created'],
      );

      const moved = await patch(auth, endpoint.id, { url: receiver.url.replace('/hook', '/moved'), events: null });
      assert.equal(moved.statusCode, 200, moved.body);
      assert.deepEqual((({ url, events }) => ({ url, events }))(moved.json<{ data: Endpoint }>().data), {
        url: receiver.url.replace('/hook', '/moved'),
        events: null,
      });
      await emit(auth, ['group.member_added']);
      await drain();
      assert.deepEqual(
        receiver.received.map((r) => [r.payload.type, r.path]),
        [
          ['member.created', '/hook'],
          ['group.member_added', '/moved'],
        ],
      );
      const same = await patch(auth, endpoint.id, { events: null, enabled: true });
      assert.equal(same.statusCode, 200);
      assert.deepEqual(same.json<{ data: Endpoint }>().data, moved.json<{ data: Endpoint }>().data);
    });

    it('refuses a bad change with the field named, and changes nothing', async () => {
      const { auth, endpoint } = await subscribe(ctx(), ['member.created']);
      const cases: [Record<string, unknown>, RegExp][] = [
        [{}, /body/],
        [{ events: ['member.exploded'] }, /body\/events|body\.events/],
        [{ events: [] }, /body\/events|body\.events/],
        [{ url: 'ftp://example.org/hook' }, /body\.url/],
        [{ enabled: 'no' }, /body\/enabled|body\.enabled/],
        [{ secret: 'whsec_x' }, /secret|additional/],
      ];
      for (const [payload, message] of cases) {
        const answer = await patch(auth, endpoint.id, payload);
        assert.equal(answer.statusCode, 400, `${JSON.stringify(payload)}: ${answer.body}`);
        const error = answer.json<{ error: { code: string; message: string } }>().error;
        assert.equal(error.code, 'validation_failed');
        assert.match(error.message, message, JSON.stringify(payload));
      }
      const [after] = await listed(auth);
      assert.deepEqual([after?.url, after?.events, after?.disabled], [receiver.url, ['member.created'], false]);
      const other = await ctx().community();
      assert.equal((await patch(other.auth, endpoint.id, { enabled: false })).statusCode, 404);
      assert.equal((await redeliverFailed(other.auth, endpoint.id, new Date(0).toISOString())).statusCode, 404);
      assert.equal((await redeliverFailed(auth, endpoint.id, 'yesterday')).statusCode, 400);
      assert.equal((await redeliverFailed(auth, endpoint.id, undefined)).statusCode, 400);
      const free = await ctx().community('free');
      const plan = await patch(free.auth, endpoint.id, { enabled: false });
      assert.equal(plan.statusCode, 403);
      assert.equal(plan.json<{ error: { code: string } }>().error.code, 'plan_required');
    });

    it('redelivers the failed deliveries since a time only, at most the cap per call, saying how many are left', async () => {
      const { auth, endpoint } = await subscribe(ctx());
      await emit(auth, ['member.created', 'member.updated']);
      ctx().clock.advance(60_000);
      const since = new Date(ctx().clock.now()).toISOString();
      const recent = redeliverFailedCap + 3;
      await emit(
        auth,
        Array.from({ length: recent }, () => 'group.member_added'),
      );
      // Disabled before the worker sends anything: every delivery fails unsent.
      await patch(auth, endpoint.id, { enabled: false });
      await drain();
      const failed = await deliveries(auth, endpoint.id, 'status=failed&per_page=100&page=10');
      assert.deepEqual([failed.total_records, failed.total_pages, failed.count, failed.has_next], [recent + 2, 11, 5, false]);
      await patch(auth, endpoint.id, { enabled: true });

      const first = (await redeliverFailed(auth, endpoint.id, since)).json<{ data: { queued: number; remaining: number } }>().data;
      assert.deepEqual([first.queued, first.remaining], [redeliverFailedCap, 3]);
      const second = (await redeliverFailed(auth, endpoint.id, since)).json<{ data: { queued: number; remaining: number } }>().data;
      assert.deepEqual([second.queued, second.remaining], [3, 0]);
      const third = (await redeliverFailed(auth, endpoint.id, since)).json<{ data: { queued: number; remaining: number } }>().data;
      assert.deepEqual([third.queued, third.remaining], [0, 0]);

      assert.equal((await deliveries(auth, endpoint.id, 'status=pending&per_page=1')).total_records, recent);
      const older = await deliveries(auth, endpoint.id, 'status=failed');
      assert.deepEqual(older.records.map((d) => d.type).sort(), ['member.created', 'member.updated']);
      assert.equal((await deliveries(auth, endpoint.id, 'status=delivered')).total_records, 0);
      const bad = await ctx().request({
        method: 'GET',
        url: `/admin/v0/webhook_endpoints/${endpoint.id}/deliveries?status=broken`,
        headers: auth,
      });
      assert.equal(bad.statusCode, 400);
    });
  },
  { beforeReady: route.register, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } },
);
