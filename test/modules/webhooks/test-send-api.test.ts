import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, beforeEach, it } from 'node:test';
import { createApiKey } from '../../../src/modules/api-keys/api-keys.commands.js';
import { DeliveryWorker } from '../../../src/modules/webhooks/worker/deliveries.js';
import { permissions } from '../../../src/shared/permissions.js';
import { durationMs } from '../../../src/shared/time.js';
import { describeEachEngine, type TestApp } from '../../support/harness.js';
import { WebhookReceiver } from '../../support/webhook-receiver.js';
import { collectingLog, emitRoute } from './webhook-test-kit.js';

interface TestResult {
  endpoint_id: string;
  webhook_id: string;
  event_type: string;
  delivered: boolean;
  status: number | null;
  duration_ms: number;
  body: string;
  error: string | null;
}

interface Attempt {
  attempted_at: string;
  status: number | null;
  duration_ms: number;
  error: string | null;
}

interface Delivery {
  id: string;
  type: string;
  status: string;
  attempts: number;
  attempt_log: Attempt[];
}

interface Page {
  page: number;
  per_page: number;
  count: number;
  total_records: number;
  total_pages: number;
  has_next: boolean;
  records: Delivery[];
}

const route = emitRoute();

/** A loopback port where nothing listens (taken, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describeEachEngine(
  'webhook test sends and deliveries over the API',
  (ctx) => {
    const receiver = new WebhookReceiver();
    before(() => receiver.start());
    after(() => receiver.stop());
    beforeEach(() => {
      receiver.reset();
      // The reference library checks timestamps against the real time.
      ctx().clock.set(Date.now());
    });

    const worker = () =>
      new DeliveryWorker({
        database: ctx().database,
        clock: ctx().clock,
        log: collectingLog(),
        allowPrivate: true,
        timeoutMs: durationMs(400),
      });

    async function subscribe(app: TestApp, url = receiver.url) {
      const community = await app.community();
      const answer = await app.request({ method: 'POST', url: '/admin/v0/webhook_endpoints', headers: community.auth, payload: { url } });
      assert.equal(answer.statusCode, 201, answer.body);
      const endpoint = answer.json<{ data: { id: string; secret: string } }>().data;
      receiver.secrets = [endpoint.secret];
      return { ...community, endpoint };
    }

    const testSend = (auth: Record<string, string>, id: string, payload: Record<string, unknown> = { event_type: 'member.created' }) =>
      ctx().request({ method: 'POST', url: `/admin/v0/webhook_endpoints/${id}/test`, headers: auth, payload });

    it('sends a signed example event marked as a test, and answers status, duration and body', async () => {
      const { auth, endpoint } = await subscribe(ctx());
      receiver.answerBody = 'thanks';
      const answer = await testSend(auth, endpoint.id, { event_type: 'calendar_event.registration.created' });
      assert.equal(answer.statusCode, 200, answer.body);
      const result = answer.json<{ success: boolean; data: TestResult }>().data;
      assert.equal(result.delivered, true);
      assert.equal(result.status, 200);
      assert.equal(result.body, 'thanks');
      assert.equal(result.error, null);
      assert.equal(result.event_type, 'calendar_event.registration.created');
      assert.ok(Number.isInteger(result.duration_ms) && result.duration_ms >= 0);
      assert.equal(receiver.received.length, 1);
      const [request] = receiver.received;
      assert.deepEqual(request?.verifiedWith, [endpoint.secret], 'verified by standardwebhooks');
      assert.equal(request?.id, result.webhook_id);
      assert.equal(request?.payload.type, 'calendar_event.registration.created');
      assert.equal(request?.payload.data.test, true);
      assert.ok(request?.payload.data.calendar_event && request.payload.data.attendee, 'shaped as the real event');
      // A test send is not a delivery of the community.
      const page = await ctx().request({ method: 'GET', url: `/admin/v0/webhook_endpoints/${endpoint.id}/deliveries`, headers: auth });
      assert.equal(page.json<{ data: Page }>().data.total_records, 0);
    });

    it('defaults to member.created, and answers every event type', async () => {
      const { auth, endpoint } = await subscribe(ctx());
      const answer = await testSend(auth, endpoint.id, {});
      assert.equal(answer.json<{ data: TestResult }>().data.event_type, 'member.created');
      assert.equal(receiver.received[0]?.payload.type, 'member.created');
      assert.equal(receiver.received[0]?.payload.data.test, true);
    });

    it("answers the receiver's failure status and only the first KiB of its body", async () => {
      const { auth, endpoint } = await subscribe(ctx());
      receiver.script.push(503);
      receiver.answerBody = 'é'.repeat(2000);
      const result = (await testSend(auth, endpoint.id)).json<{ data: TestResult }>().data;
      assert.equal(result.delivered, false);
      assert.equal(result.status, 503);
      assert.equal(Buffer.byteLength(result.body), 1024);
      assert.equal(result.body, 'é'.repeat(512));
    });

    it('answers the connection error when nothing listens, and a timeout when the receiver hangs', async () => {
      const { auth, endpoint } = await subscribe(ctx(), `http://127.0.0.1:${await closedPort()}/hook`);
      const refused = (await testSend(auth, endpoint.id)).json<{ data: TestResult }>().data;
      assert.equal(refused.delivered, false);
      assert.equal(refused.status, null);
      assert.match(refused.error ?? '', /ECONNREFUSED/);
      const hanging = await subscribe(ctx());
      receiver.script.push('hang');
      const slow = (await testSend(hanging.auth, hanging.endpoint.id)).json<{ data: TestResult }>().data;
      assert.equal(slow.status, null);
      assert.match(slow.error ?? '', /no answer within \d+ ms/);
    });

    it('refuses an unknown event type (400), an unknown or foreign endpoint (404), a disabled one (409)', async () => {
      const { auth, endpoint } = await subscribe(ctx());
      const bad = await testSend(auth, endpoint.id, { event_type: 'member.exploded' });
      assert.equal(bad.statusCode, 400);
      assert.match(bad.body, /event_type/);
      const other = await ctx().community();
      assert.equal((await testSend(other.auth, endpoint.id)).statusCode, 404);
      assert.equal((await testSend(auth, '00000000-0000-4000-8000-000000000000')).statusCode, 404);
      // The receiver answers 410 Gone to a real delivery: the endpoint is disabled.
      receiver.fallback = 410;
      await ctx().request({
        method: 'POST',
        url: '/admin/v0/test/webhook-events',
        headers: auth,
        payload: { events: [{ type: 'member.created', data: { id: 'm' } }] },
      });
      assert.equal(await worker().tick(), 1);
      const sent = receiver.received.length;
      const refused = await testSend(auth, endpoint.id);
      assert.equal(refused.statusCode, 409, refused.body);
      assert.equal(refused.json<{ error: { code: string } }>().error.code, 'webhook_endpoint_disabled');
      assert.equal(receiver.received.length, sent, 'nothing sent');
    });

    it('needs webhooks:write and the Enterprise plan', async () => {
      const { id, endpoint } = await subscribe(ctx());
      const scoped = await createApiKey(
        { database: ctx().database, clock: ctx().clock, communityId: id },
        { label: 'no webhooks', permissions: new Set(permissions.filter((p) => p !== 'webhooks:write')) },
      );
      const refused = await testSend({ authorization: `Bearer ${scoped.key}` }, endpoint.id);
      assert.equal(refused.statusCode, 403);
      assert.equal(refused.json<{ error: { code: string } }>().error.code, 'insufficient_scope');
      const free = await ctx().community('free');
      assert.equal((await testSend(free.auth, endpoint.id)).statusCode, 403);
      assert.equal(receiver.received.length, 0);
    });

    it('lists deliveries with each attempt, paged, filtered by status; redelivers one', async () => {
      const { auth, endpoint } = await subscribe(ctx());
      receiver.script.push(500);
      const emitted = await ctx().request({
        method: 'POST',
        url: '/admin/v0/test/webhook-events',
        headers: auth,
        payload: {
          events: [
            { type: 'member.created', data: { id: 'a' } },
            { type: 'member.updated', data: { id: 'b' } },
          ],
        },
      });
      assert.equal(emitted.statusCode, 200);
      assert.equal(await worker().tick(), 2);
      const list = async (query: string) => {
        const answer = await ctx().request({
          method: 'GET',
          url: `/admin/v0/webhook_endpoints/${endpoint.id}/deliveries${query}`,
          headers: auth,
        });
        assert.equal(answer.statusCode, 200, answer.body);
        return answer.json<{ data: Page }>().data;
      };
      const all = await list('');
      assert.equal(all.total_records, 2);
      assert.deepEqual(
        all.records.map((d) => d.type),
        ['member.updated', 'member.created'],
        'newest first',
      );
      const failed = all.records.find((d) => d.type === 'member.created') as Delivery;
      assert.equal(failed.status, 'pending');
      assert.equal(failed.attempt_log.length, 1);
      assert.equal(failed.attempt_log[0]?.status, 500);
      assert.equal(failed.attempt_log[0]?.error, null);
      assert.ok(Number.isInteger(failed.attempt_log[0]?.duration_ms));
      assert.ok(!Number.isNaN(Date.parse(failed.attempt_log[0]?.attempted_at ?? '')));
      const delivered = await list('?status=delivered');
      assert.deepEqual(
        delivered.records.map((d) => d.type),
        ['member.updated'],
      );
      assert.equal(delivered.records[0]?.attempt_log[0]?.status, 200);
      const second = await list('?per_page=1&page=1');
      assert.deepEqual([second.count, second.total_records, second.total_pages, second.has_next], [1, 2, 2, false]);
      assert.equal(second.records[0]?.type, 'member.created');
      const badStatus = await ctx().request({
        method: 'GET',
        url: `/admin/v0/webhook_endpoints/${endpoint.id}/deliveries?status=lost`,
        headers: auth,
      });
      assert.equal(badStatus.statusCode, 400);

      const deliveredId = delivered.records[0]?.id as string;
      const redelivered = await ctx().request({
        method: 'POST',
        url: `/admin/v0/webhook_deliveries/${deliveredId}/redeliver`,
        headers: auth,
      });
      assert.equal(redelivered.statusCode, 200, redelivered.body);
      assert.equal(redelivered.json<{ data: Delivery }>().data.status, 'pending');
      ctx().clock.advance(10_000);
      assert.equal(await worker().tick(), 2, 'the redelivered one and the retried one');
      const after = (await list('?status=delivered')).records;
      assert.equal(after.length, 2);
      const again = after.find((d) => d.id === deliveredId) as Delivery;
      assert.equal(again.attempt_log.length, 2, 'the log keeps the attempt before the redelivery');
      const [first, last] = receiver.received.filter((r) => r.payload.type === 'member.updated');
      assert.equal(first?.id, last?.id, 'same webhook-id');

      const other = await ctx().community();
      assert.equal(
        (await ctx().request({ method: 'POST', url: `/admin/v0/webhook_deliveries/${deliveredId}/redeliver`, headers: other.auth }))
          .statusCode,
        404,
      );
      assert.equal(
        (await ctx().request({ method: 'GET', url: `/admin/v0/webhook_endpoints/${endpoint.id}/deliveries`, headers: other.auth }))
          .statusCode,
        404,
      );
    });
  },
  { beforeReady: route.register, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } },
);

// The address rules apply to test sends: a name that now resolves to a private address is refused.
let resolvesTo = '93.184.215.14';
describeEachEngine(
  'webhook test sends follow the target rules',
  (ctx) => {
    it('refuses to send to a host that now resolves to a loopback address, without connecting', async () => {
      const { auth } = await ctx().community();
      resolvesTo = '93.184.215.14';
      const created = await ctx().request({
        method: 'POST',
        url: '/admin/v0/webhook_endpoints',
        headers: auth,
        payload: { url: 'https://hooks.receiver.test/hook' },
      });
      assert.equal(created.statusCode, 201, created.body);
      resolvesTo = '127.0.0.1';
      const id = created.json<{ data: { id: string } }>().data.id;
      const answer = await ctx().request({ method: 'POST', url: `/admin/v0/webhook_endpoints/${id}/test`, headers: auth, payload: {} });
      assert.equal(answer.statusCode, 200, answer.body);
      const result = answer.json<{ data: TestResult }>().data;
      assert.equal(result.delivered, false);
      assert.equal(result.status, null);
      assert.match(result.error ?? '', /^target refused: .*127\.0\.0\.1/);
    });
  },
  { services: { webhookResolver: async () => [{ address: resolvesTo, family: 4 }] } },
);
