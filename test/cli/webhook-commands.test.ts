import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createCommunity } from '../../src/modules/communities/communities.commands.js';
import { systemClock } from '../../src/shared/clock.js';
import { parseJsonOutput, runCli } from '../support/cli.js';
import { createTestDatabase, engines, type TestDatabase } from '../support/harness.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

for (const { engine, skip } of engines) {
  describe(`community-admin webhook commands [${engine}]`, { skip }, () => {
    let testDb: TestDatabase;
    let env: Record<string, string>;
    let communityId = '';
    before(async () => {
      testDb = await createTestDatabase(engine);
      env = { ...testDb.env, WEBHOOK_ALLOW_PRIVATE: 'true' };
      communityId = (await createCommunity({ database: testDb.database, clock: systemClock }, { name: 'Hooks', plan: 'enterprise' })).id;
    });
    after(async () => {
      await testDb?.drop();
    });

    it('add --json prints exactly {id, url, events, secret}; list, rotate-secret, deliveries, remove work on it', async () => {
      const added = await runCli(
        [
          'webhook',
          'add',
          '--community',
          communityId,
          '--url',
          'http://127.0.0.1:9/hook',
          '--events',
          'member.created,post.created',
          '--json',
        ],
        env,
      );
      assert.equal(added.code, 0, added.stderr);
      const endpoint = parseJsonOutput<{ id: string; url: string; events: string[]; secret: string }>(added);
      assert.deepEqual(Object.keys(endpoint), ['id', 'url', 'events', 'secret']);
      assert.deepEqual(endpoint.events, ['member.created', 'post.created']);
      assert.match(endpoint.secret, /^whsec_/);

      const listed = await runCli(['webhook', 'list', '--community', communityId, '--json'], env);
      assert.equal(listed.code, 0, listed.stderr);
      const endpoints = parseJsonOutput<{ id: string; disabled: boolean }[]>(listed);
      assert.equal(endpoints.length, 1);
      assert.equal(endpoints[0]?.disabled, false);
      assert.equal(listed.stdout.includes('whsec_'), false);
      const table = await runCli(['webhook', 'list', '--community', communityId], env);
      assert.match(table.stdout, /active/);

      const rotated = await runCli(['webhook', 'rotate-secret', endpoint.id, '--grace', '2h', '--json'], env);
      assert.equal(rotated.code, 0, rotated.stderr);
      const rotation = parseJsonOutput<{ id: string; secret: string; previous_secret_expires_at: string }>(rotated);
      assert.notEqual(rotation.secret, endpoint.secret);
      const grace = Date.parse(rotation.previous_secret_expires_at) - Date.now();
      assert.ok(grace > 7_000_000 && grace <= 7_200_000, String(grace));

      const deliveries = await runCli(['webhook', 'deliveries', '--endpoint', endpoint.id, '--status', 'failed', '--json'], env);
      assert.equal(deliveries.code, 0, deliveries.stderr);
      assert.deepEqual(parseJsonOutput(deliveries), []);
      const badStatus = await runCli(['webhook', 'deliveries', '--endpoint', endpoint.id, '--status', 'lost'], env);
      assert.equal(badStatus.code, 1);
      assert.match(badStatus.stderr, /status: must be one of pending, delivered, failed/);

      const redelivered = await runCli(['webhook', 'redeliver', '--endpoint', endpoint.id, '--since', '1h', '--json'], env);
      assert.equal(redelivered.code, 0, redelivered.stderr);
      assert.deepEqual(parseJsonOutput(redelivered), { redelivered: 0 });

      const removed = await runCli(['webhook', 'remove', endpoint.id, '--json'], env);
      assert.equal(removed.code, 0, removed.stderr);
      assert.deepEqual(parseJsonOutput(removed), { id: endpoint.id, removed: true });
      assert.deepEqual(parseJsonOutput(await runCli(['webhook', 'list', '--community', communityId, '--json'], env)), []);
    });

    it('update disables, enables and changes an endpoint as PATCH /webhook_endpoints/{id} does', async () => {
      const added = await runCli(['webhook', 'add', '--community', communityId, '--url', 'http://127.0.0.1:9/u', '--json'], env);
      const { id } = parseJsonOutput<{ id: string }>(added);
      const disabled = await runCli(['webhook', 'update', id, '--disable', '--json'], env);
      assert.equal(disabled.code, 0, disabled.stderr);
      const off = parseJsonOutput<{ disabled: boolean; disabled_reason: string; events: null }>(disabled);
      assert.deepEqual([off.disabled, off.disabled_reason, off.events], [true, 'disabled by an operator', null]);
      const table = await runCli(['webhook', 'list', '--community', communityId], env);
      assert.match(table.stdout, /disabled: disabled by an operator/);
      const changed = await runCli(
        ['webhook', 'update', id, '--enable', '--events', 'member.created', '--url', 'http://127.0.0.1:9/v'],
        env,
      );
      assert.equal(changed.code, 0, changed.stderr);
      assert.match(changed.stdout, /http:\/\/127\.0\.0\.1:9\/v \(member\.created\), active\./);
      const every = parseJsonOutput<{ events: null }>(await runCli(['webhook', 'update', id, '--events', '*', '--json'], env));
      assert.equal(every.events, null);
      const both = await runCli(['webhook', 'update', id, '--enable', '--disable'], env);
      assert.equal(both.code, 1);
      assert.match(both.stderr, /--enable or --disable, not both/);
      const nothing = await runCli(['webhook', 'update', id], env);
      assert.equal(nothing.code, 1);
      const unknown = await runCli(['webhook', 'update', id, '--events', 'member.exploded'], env);
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /unknown event type "member\.exploded"/);
      assert.equal((await runCli(['webhook', 'remove', id], env)).code, 0);
    });

    it('refuses private targets without WEBHOOK_ALLOW_PRIVATE, unknown types and ids, with exit status 1', async () => {
      const privateTarget = await runCli(['webhook', 'add', '--community', communityId, '--url', 'https://127.0.0.1/hook'], testDb.env);
      assert.equal(privateTarget.code, 1);
      assert.match(privateTarget.stderr, /url: resolves to 127\.0\.0\.1, a loopback, private or reserved address/);
      const plainHttp = await runCli(['webhook', 'add', '--community', communityId, '--url', 'http://93.184.215.14/hook'], testDb.env);
      assert.equal(plainHttp.code, 1);
      assert.match(plainHttp.stderr, /must be an https URL/);
      const unknownType = await runCli(
        ['webhook', 'add', '--community', communityId, '--url', 'http://127.0.0.1:9/', '--events', 'member.eaten'],
        env,
      );
      assert.equal(unknownType.code, 1);
      assert.match(unknownType.stderr, /unknown event type "member\.eaten"/);
      const unknownCommunity = await runCli(['webhook', 'add', '--community', 'nope', '--url', 'http://127.0.0.1:9/'], env);
      assert.equal(unknownCommunity.code, 1);
      const unknownEndpoint = await runCli(['webhook', 'remove', '00000000-0000-4000-8000-000000000000'], env);
      assert.equal(unknownEndpoint.code, 1);
      assert.match(unknownEndpoint.stderr, /Webhook endpoint not found/);
      const usage = await runCli(['webhook', 'redeliver', '--since', '1h'], env);
      assert.equal(usage.code, 1);
      assert.match(usage.stderr, /either a delivery id, or both --endpoint ID and --since TIME/);
      const badGrace = await runCli(['webhook', 'rotate-secret', 'x', '--grace', 'soon'], env);
      assert.equal(badGrace.code, 1);
      assert.match(badGrace.stderr, /--grace must be a duration/);
    });

    it('test sends a signed example to the receiver and prints its answer; exit 1 when it fails', async () => {
      const receiver = new WebhookReceiver();
      await receiver.start();
      try {
        const added = await runCli(['webhook', 'add', '--community', communityId, '--url', receiver.url, '--json'], env);
        const endpoint = parseJsonOutput<{ id: string; secret: string }>(added);
        receiver.secrets = [endpoint.secret];
        receiver.answerBody = 'got it';
        const sent = await runCli(['webhook', 'test', endpoint.id, '--event', 'post.created', '--json'], env);
        assert.equal(sent.code, 0, sent.stderr);
        const result = parseJsonOutput<{ delivered: boolean; status: number; body: string; event_type: string; duration_ms: number }>(sent);
        assert.deepEqual([result.delivered, result.status, result.body, result.event_type], [true, 200, 'got it', 'post.created']);
        assert.deepEqual(receiver.received[0]?.verifiedWith, [endpoint.secret]);
        assert.equal(receiver.received[0]?.payload.data.test, true);
        receiver.script.push(500);
        const failed = await runCli(['webhook', 'test', endpoint.id], env);
        assert.equal(failed.code, 1);
        assert.match(failed.stdout, /Test member\.created \(msg_\w+\) sent to .*: answered 500 in \d+ ms:\ngot it/);
        const unknownType = await runCli(['webhook', 'test', endpoint.id, '--event', 'member.eaten'], env);
        assert.equal(unknownType.code, 1);
        assert.match(unknownType.stderr, /event_type: must be one of/);
      } finally {
        await receiver.stop();
      }
    });
  });
}
