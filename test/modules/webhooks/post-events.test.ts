/**
 * post.created, post.updated and post.deleted as the chat sync emits them: Slack's signed events in
 * through POST /chat/events (the fake Slack behind), deliveries out to a real receiver that verifies
 * each with the reference library; on both engines.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { DeliveryWorker } from '../../../src/modules/webhooks/worker/deliveries.js';
import { durationMs } from '../../../src/shared/time.js';
import { chatEventsApplied, connectedFeed, deliverSigned, eventEnvelope } from '../../support/chat-events-kit.js';
import { startFakeChatServer } from '../../support/fake-chat-server.js';
import { describeEachEngine, type TestApp } from '../../support/harness.js';
import { WebhookReceiver } from '../../support/webhook-receiver.js';
import { collectingLog } from './webhook-test-kit.js';

const fake = await startFakeChatServer();
after(() => fake.close());

describeEachEngine(
  'webhook events of the chat sync (posts)',
  (ctx) => {
    const receiver = new WebhookReceiver();
    let t: TestApp;
    let community: Awaited<ReturnType<TestApp['community']>>;
    let feedId: string;
    let worker: DeliveryWorker;
    let seq = 0;

    before(async () => {
      await receiver.start();
      t = ctx();
      t.clock.set(Date.now());
      fake.reset();
      fake.addUser({ email: 'ada@example.com', id: 'U0ADA', real_name: 'Ada Lovelace' });
      fake.addChannel({ id: 'C0HOOK', name: 'hooked', num_members: 2 });
      community = await t.community();
      feedId = await connectedFeed(t, fake, community.id, 'C0HOOK');
      // One endpoint for the three post types, one for post.created only (its own path).
      const endpoint = async (url: string, events: string[]) => {
        const created = await t.request({
          method: 'POST',
          url: '/admin/v0/webhook_endpoints',
          headers: community.auth,
          payload: { url, events },
        });
        assert.equal(created.statusCode, 201, created.body);
        return created.json<{ data: { secret: string } }>().data.secret;
      };
      receiver.secrets = [
        await endpoint(receiver.url, ['post.created', 'post.updated', 'post.deleted']),
        await endpoint(`http://127.0.0.1:${receiver.port}/created-only`, ['post.created']),
      ];
      worker = new DeliveryWorker({
        database: t.database,
        clock: t.clock,
        log: collectingLog(),
        allowPrivate: true,
        timeoutMs: durationMs(2000),
      });
    });
    after(() => receiver.stop());

    const deliver = async (event: Record<string, unknown>) => {
      const response = await deliverSigned(t, eventEnvelope(t, fake.teamId, event, `Ev${String(++seq).padStart(8, '0')}`));
      assert.equal(response.statusCode, 200, response.body);
      // Applied by the server's worker.
      await chatEventsApplied(t);
    };

    /** What the receiver got since the last call, each delivery verified with the secret of its endpoint. */
    const sent = async () => {
      await worker.tick();
      const got = receiver.received.map((r) => {
        assert.deepEqual(r.verifiedWith, [receiver.secrets[r.path === '/hook' ? 0 : 1]], `${r.payload.type} to ${r.path} verified`);
        return { path: r.path, type: r.payload.type, data: r.payload.data };
      });
      receiver.received.length = 0;
      return got;
    };

    const listed = async () => {
      const response = await t.request({ method: 'GET', url: `/admin/v0/feeds/${feedId}/posts?per_page=50`, headers: community.auth });
      assert.equal(response.statusCode, 200, response.body);
      return response.json<{ data: { records: Record<string, unknown>[] } }>().data.records;
    };

    const message = (ts: string, text: string) => ({
      type: 'message',
      channel: 'C0HOOK',
      user: 'U0ADA',
      text,
      ts,
      blocks: [{ type: 'rich_text', block_id: 'b', elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text }] }] }],
    });

    /** Slack's message_deleted of the message `ts` whose text was `text`. */
    const deletion = (ts: string, text: string, eventTs: string) => ({
      type: 'message',
      subtype: 'message_deleted',
      channel: 'C0HOOK',
      hidden: true,
      deleted_ts: ts,
      ts: eventTs,
      previous_message: message(ts, text),
    });

    it('a message, its edit and its deletion: each type to the endpoints that want it, the post as the API answers it', async () => {
      const ts = '1700000100.000100';
      await deliver(message(ts, 'first words'));
      const [post] = await listed();
      assert.ok(post, 'the post is listed');
      const created = await sent();
      assert.deepEqual(created.map((d) => `${d.path} ${d.type}`).sort(), ['/created-only post.created', '/hook post.created']);
      for (const delivery of created) assert.deepEqual(delivery.data, post);

      await deliver({
        type: 'message',
        subtype: 'message_changed',
        channel: 'C0HOOK',
        hidden: true,
        ts: '1700000200.000000',
        message: { ...message(ts, 'edited words'), edited: { user: 'U0ADA', ts: '1700000200.000000' } },
        previous_message: message(ts, 'first words'),
      });
      const [edited] = await listed();
      const updated = await sent();
      assert.deepEqual(
        updated.map((d) => `${d.path} ${d.type}`),
        ['/hook post.updated'],
      );
      assert.deepEqual(updated[0]?.data, edited);
      assert.match(JSON.stringify(edited), /edited words/);

      await deliver(deletion(ts, 'edited words', '1700000300.000000'));
      assert.deepEqual(await listed(), []);
      const deleted = await sent();
      assert.deepEqual(
        deleted.map((d) => `${d.path} ${d.type}`),
        ['/hook post.deleted'],
      );
      // The post as it was just before it went.
      assert.deepEqual(deleted[0]?.data, edited);
    });

    it('a deletion no endpoint wants sends nothing and still deletes', async () => {
      const ts = '1700000400.000100';
      await deliver(message(ts, 'short-lived'));
      assert.equal((await listed()).length, 1);
      assert.deepEqual((await sent()).map((d) => `${d.path} ${d.type}`).sort(), ['/created-only post.created', '/hook post.created']);
      const endpoints = await t.request({ method: 'GET', url: '/admin/v0/webhook_endpoints', headers: community.auth });
      const hook = endpoints.json<{ data: { id: string; url: string }[] }>().data.find((e) => e.url === receiver.url);
      assert.ok(hook);
      const removed = await t.request({ method: 'DELETE', url: `/admin/v0/webhook_endpoints/${hook.id}`, headers: community.auth });
      assert.equal(removed.statusCode, 200, removed.body);
      // Only the created-only endpoint is left: nobody wants post.deleted.
      await deliver(deletion(ts, 'short-lived', '1700000500.000000'));
      assert.deepEqual(await listed(), []);
      assert.deepEqual(await sent(), []);
    });
  },
  { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } },
);
