import assert from 'node:assert/strict';
import { after, before, beforeEach, it } from 'node:test';
import { listWebhookDeliveries } from '../../../src/modules/webhooks/commands/deliveries.js';
import { rotateWebhookSecret } from '../../../src/modules/webhooks/commands/endpoints.js';
import { webhookEventTypes } from '../../../src/modules/webhooks/rules/event-types.js';
import { retryDelaysMs } from '../../../src/modules/webhooks/rules/retry-schedule.js';
import { DeliveryWorker, type DeliveryWorkerOptions } from '../../../src/modules/webhooks/worker/deliveries.js';
import { durationMs } from '../../../src/shared/time.js';
import { describeEachEngine, type TestApp } from '../../support/harness.js';
import { WebhookReceiver } from '../../support/webhook-receiver.js';
import { collectingLog, emitRoute, eventRecord } from './webhook-test-kit.js';

const route = emitRoute();
const timeoutMs = 400;

describeEachEngine(
  'webhook delivery',
  (ctx) => {
    const receiver = new WebhookReceiver();
    let log = collectingLog();
    let worker: DeliveryWorker;
    before(() => receiver.start());
    after(() => receiver.stop());
    beforeEach(() => {
      receiver.reset();
      // The reference library checks timestamps against the real time: start each test there.
      ctx().clock.set(Date.now());
      log = collectingLog();
      worker = workerWith({ random: () => 0.5 });
    });

    /** A worker on the test's database and clock, sending to loopback, with `options` on top. */
    const workerWith = (options: Partial<DeliveryWorkerOptions> = {}) =>
      new DeliveryWorker({
        database: ctx().database,
        clock: ctx().clock,
        log,
        allowPrivate: true,
        timeoutMs: durationMs(timeoutMs),
        ...options,
      });

    /** A community with one endpoint at the receiver; the receiver knows its secret. */
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

    const emit = (app: TestApp, auth: Record<string, string>, events: { type: string; data: Record<string, unknown> }[], fail = false) =>
      app.request({ method: 'POST', url: '/admin/v0/test/webhook-events', headers: auth, payload: { events, fail } });

    const dataOf = (type: string): Record<string, unknown> =>
      type.startsWith('calendar_event.') ? eventRecord(true) : { id: `${type}-id`, note: 'Zoë ✓' };

    it('delivers every event type in order, signed, each verified by the reference library', async () => {
      const { auth, endpoint } = await subscribe(ctx());
      const half = Math.ceil(webhookEventTypes.length / 2);
      const first = webhookEventTypes.slice(0, half).map((type) => ({ type, data: dataOf(type) }));
      const second = webhookEventTypes.slice(half).map((type) => ({ type, data: dataOf(type) }));
      assert.equal((await emit(ctx(), auth, first)).statusCode, 200);
      ctx().clock.advance(1);
      assert.equal((await emit(ctx(), auth, second)).statusCode, 200);
      assert.equal(await worker.tick(), webhookEventTypes.length);
      assert.deepEqual(
        receiver.received.map((r) => r.payload.type),
        [...webhookEventTypes],
      );
      for (const request of receiver.received) {
        assert.deepEqual(request.verifiedWith, [endpoint.secret], request.payload.type);
        assert.match(request.id, /^msg_[0-9A-Za-z]{24}$/);
        assert.deepEqual(Object.keys(request.payload), ['type', 'timestamp', 'data']);
        assert.deepEqual(request.payload.data, dataOf(request.payload.type));
      }
      const registration = receiver.received.find((r) => r.payload.type === 'calendar_event.registration.created');
      assert.equal(registration?.payload.data.webhook_custom_metadata, '{"crm_campaign":"fall"}');
      assert.equal(new Set(receiver.received.map((r) => r.id)).size, webhookEventTypes.length);
      assert.equal(await worker.tick(), 0, 'nothing left to send');
      const deliveries = await listWebhookDeliveries({ database: ctx().database }, endpoint.id, 'delivered');
      assert.equal(deliveries.length, webhookEventTypes.length);
      assert.ok(deliveries.every((d) => d.attempts === 1 && d.last_response_status === 200));
    });

    it('sends calendar-event types only for events that trigger webhooks, and only the types an endpoint wants', async () => {
      const { auth } = await subscribe(ctx(), ['calendar_event.registration.created', 'member.created']);
      const before = route.renders.count;
      await emit(ctx(), auth, [
        { type: 'calendar_event.registration.created', data: eventRecord(false) },
        { type: 'calendar_event.registration.created', data: { attendee: { email: 'a@b.co' }, calendar_event: eventRecord(true) } },
        { type: 'member.updated', data: { id: 'not wanted' } },
        { type: 'member.created', data: { id: 'm1' } },
      ]);
      assert.equal(route.renders.count - before, 3, 'the unwanted member.updated is never rendered');
      assert.equal(await worker.tick(), 2);
      assert.deepEqual(
        receiver.received.map((r) => r.payload.type),
        ['calendar_event.registration.created', 'member.created'],
      );
      assert.deepEqual(receiver.received[0]?.payload.data.attendee, { email: 'a@b.co' });
    });

    it('renders nothing and records nothing for a community without endpoints', async () => {
      const { auth } = await ctx().community();
      const before = route.renders.count;
      assert.equal((await emit(ctx(), auth, [{ type: 'member.created', data: { id: 'm' } }])).statusCode, 200);
      assert.equal(route.renders.count, before);
      assert.equal(await worker.tick(), 0);
    });

    it('writes no webhook when the change fails (same transaction)', async () => {
      const { auth, endpoint } = await subscribe(ctx());
      const answer = await emit(ctx(), auth, [{ type: 'member.created', data: { id: 'm' } }], true);
      assert.equal(answer.statusCode, 500);
      assert.equal(await worker.tick(), 0);
      assert.deepEqual(await listWebhookDeliveries({ database: ctx().database }, endpoint.id, null), []);
    });

    it('retries after a 500 with the same webhook-id, once the backoff has passed', async () => {
      const { auth, endpoint } = await subscribe(ctx());
      receiver.script.push(500);
      await emit(ctx(), auth, [{ type: 'member.created', data: { id: 'm' } }]);
      assert.equal(await worker.tick(), 1);
      const [pending] = await listWebhookDeliveries({ database: ctx().database }, endpoint.id, 'pending');
      assert.equal(pending?.attempts, 1);
      assert.equal(pending?.last_response_status, 500);
      ctx().clock.advance((retryDelaysMs[0] as number) - 1);
      assert.equal(await worker.tick(), 0, 'not due before its backoff');
      ctx().clock.advance(1);
      assert.equal(await worker.tick(), 1);
      assert.equal(receiver.received.length, 2);
      assert.equal(receiver.received[0]?.id, receiver.received[1]?.id);
      assert.equal(receiver.received[0]?.body, receiver.received[1]?.body);
      assert.notEqual(receiver.received[0]?.timestamp, receiver.received[1]?.timestamp);
      for (const request of receiver.received) assert.deepEqual(request.verifiedWith, [endpoint.secret]);
      const [delivered] = await listWebhookDeliveries({ database: ctx().database }, endpoint.id, 'delivered');
      assert.equal(delivered?.attempts, 2);
    });

    it('treats a receiver that does not answer within the timeout as a failed attempt, and retries', async () => {
      const { auth, endpoint } = await subscribe(ctx());
      receiver.script.push('hang');
      await emit(ctx(), auth, [{ type: 'post.created', data: { id: 'p' } }]);
      const started = Date.now();
      assert.equal(await worker.tick(), 1);
      assert.ok(Date.now() - started >= timeoutMs - 20);
      const [pending] = await listWebhookDeliveries({ database: ctx().database }, endpoint.id, 'pending');
      assert.equal(pending?.last_error, `no answer within ${timeoutMs} ms`);
      assert.equal(pending?.last_response_status, null);
      ctx().clock.advance(retryDelaysMs[0] as number);
      assert.equal(await worker.tick(), 1);
      assert.equal(receiver.received.length, 2);
      assert.equal(receiver.received[1]?.id, receiver.received[0]?.id);
      assert.equal((await listWebhookDeliveries({ database: ctx().database }, endpoint.id, 'delivered')).length, 1);
    });

    it('disables the endpoint on 410 with a log line, fails its other deliveries, records no more for it', async () => {
      const { auth, endpoint } = await subscribe(ctx());
      receiver.script.push(410);
      await emit(ctx(), auth, [
        { type: 'member.created', data: { id: 'a' } },
        { type: 'member.updated', data: { id: 'a' } },
      ]);
      assert.equal(await worker.tick(), 2);
      assert.equal(receiver.received.length, 1, 'nothing is sent after the 410');
      const listed = await ctx().request({ method: 'GET', url: '/admin/v0/webhook_endpoints', headers: auth });
      const [state] = listed.json<{ data: { disabled: boolean; disabled_reason: string }[] }>().data;
      assert.equal(state?.disabled, true);
      assert.match(state?.disabled_reason ?? '', /410/);
      assert.ok(
        log.lines.some(
          (line) => line.level === 'warn' && line.message === 'webhook endpoint disabled' && line.object.endpoint_id === endpoint.id,
        ),
      );
      assert.equal((await listWebhookDeliveries({ database: ctx().database }, endpoint.id, 'failed')).length, 2);
      await emit(ctx(), auth, [{ type: 'member.created', data: { id: 'b' } }]);
      assert.equal((await listWebhookDeliveries({ database: ctx().database }, endpoint.id, null)).length, 2);
    });

    it('fails a delivery after the whole schedule, and disables an endpoint failing for longer than it', async () => {
      const { auth, endpoint } = await subscribe(ctx());
      receiver.fallback = 503;
      await emit(ctx(), auth, [{ type: 'member.created', data: { id: 'a' } }]);
      assert.equal(await worker.tick(), 1);
      for (const delay of retryDelaysMs) {
        ctx().clock.advance(delay);
        assert.equal(await worker.tick(), 1);
      }
      assert.equal(receiver.received.length, retryDelaysMs.length + 1);
      const [failed] = await listWebhookDeliveries({ database: ctx().database }, endpoint.id, 'failed');
      assert.equal(failed?.attempts, retryDelaysMs.length + 1);
      assert.equal(failed?.last_response_status, 503);
      ctx().clock.advance(1);
      await emit(ctx(), auth, [{ type: 'member.updated', data: { id: 'a' } }]);
      assert.equal(await worker.tick(), 1);
      const listed = await ctx().request({ method: 'GET', url: '/admin/v0/webhook_endpoints', headers: auth });
      const [state] = listed.json<{ data: { disabled: boolean; disabled_reason: string }[] }>().data;
      assert.equal(state?.disabled, true);
      assert.match(state?.disabled_reason ?? '', /longer than the retry schedule/);
    });

    it('signs with the old and the new secret during a rotation grace, and with the new one only after', async () => {
      const { auth, endpoint } = await subscribe(ctx());
      const rotated = await rotateWebhookSecret(
        { database: ctx().database, clock: ctx().clock },
        { id: endpoint.id, graceMs: durationMs(60_000) },
      );
      receiver.secrets = [endpoint.secret, rotated.secret];
      await emit(ctx(), auth, [{ type: 'member.created', data: { id: 'a' } }]);
      await worker.tick();
      const [during] = receiver.received;
      assert.equal(during?.signature.split(' ').length, 2);
      assert.deepEqual(during?.verifiedWith, [endpoint.secret, rotated.secret]);
      ctx().clock.advance(60_001);
      await emit(ctx(), auth, [{ type: 'member.updated', data: { id: 'a' } }]);
      await worker.tick();
      const afterGrace = receiver.received[1];
      assert.equal(afterGrace?.signature.split(' ').length, 1);
      assert.deepEqual(afterGrace?.verifiedWith, [rotated.secret]);
    });

    it('two workers ticking at once send each delivery once', async () => {
      const { auth, endpoint } = await subscribe(ctx());
      const events = Array.from({ length: 60 }, (_, i) => ({ type: 'member.updated', data: { id: `m${i}` } }));
      for (let i = 0; i < 60; i += 10) await emit(ctx(), auth, events.slice(i, i + 10));
      const other = workerWith({ perEndpoint: 7 });
      const mine = workerWith({ perEndpoint: 7 });
      let sent = 0;
      for (let round = 0; round < 20 && sent < 60; round++)
        sent += (await Promise.all([mine.tick(), other.tick()])).reduce((a, b) => a + b, 0);
      assert.equal(sent, 60);
      assert.equal(receiver.received.length, 60);
      assert.equal(new Set(receiver.received.map((r) => r.id)).size, 60);
      assert.equal((await listWebhookDeliveries({ database: ctx().database }, endpoint.id, 'delivered')).length, 60);
    });

    it('a backlog of changes for a removed endpoint does not hold back the next tick', async () => {
      const gone = await subscribe(ctx());
      const events = Array.from({ length: 100 }, (_, i) => ({ type: 'member.updated', data: { id: `m${i}` } }));
      for (let i = 0; i < 7; i++) assert.equal((await emit(ctx(), gone.auth, events)).statusCode, 200);
      const removed = await ctx().request({ method: 'DELETE', url: `/admin/v0/webhook_endpoints/${gone.endpoint.id}`, headers: gone.auth });
      assert.equal(removed.statusCode, 200, removed.body);
      const kept = await subscribe(ctx());
      await emit(ctx(), kept.auth, [{ type: 'member.created', data: { id: 'after' } }]);
      assert.equal(await worker.tick(), 1, 'the 700 changes for the removed endpoint are skipped in the same tick');
      assert.deepEqual(
        receiver.received.map((r) => r.payload.data.id),
        ['after'],
      );
    });

    it('deletes delivered and failed deliveries once they are older than the retention; pending ones stay', async () => {
      const dayMs = 24 * 60 * 60 * 1000;
      const keeper = workerWith({ retentionMs: durationMs(dayMs) });
      const { auth, endpoint } = await subscribe(ctx());
      receiver.script.push(200, 500);
      await emit(ctx(), auth, [
        { type: 'member.created', data: { id: 'delivered' } },
        { type: 'member.updated', data: { id: 'retried' } },
      ]);
      assert.equal(await keeper.tick(), 2);
      const listed = async (status: string | null) =>
        (await listWebhookDeliveries({ database: ctx().database }, endpoint.id, status)).map((d) => `${d.type}:${d.status}`).sort();
      assert.deepEqual(await listed(null), ['member.created:delivered', 'member.updated:pending']);
      ctx().clock.advance(dayMs - 60_000);
      receiver.script.push(500);
      await keeper.tick();
      assert.deepEqual(await listed(null), ['member.created:delivered', 'member.updated:pending'], 'within the retention');
      ctx().clock.advance(2 * 60 * 60 * 1000);
      receiver.script.push(500);
      await keeper.tick();
      assert.deepEqual(await listed(null), ['member.updated:pending'], 'the delivered one is gone, the pending one stays');
    });
  },
  { beforeReady: route.register, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } },
);
