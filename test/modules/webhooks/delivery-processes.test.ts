import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Database } from '../../../src/db/database.js';
import { createApiKey } from '../../../src/modules/api-keys/api-keys.commands.js';
import { createCommunity } from '../../../src/modules/communities/communities.commands.js';
import { listWebhookDeliveries } from '../../../src/modules/webhooks/commands/deliveries.js';
import { createWebhookEndpoint } from '../../../src/modules/webhooks/commands/endpoints.js';
import { systemClock } from '../../../src/shared/clock.js';
import { writeCommunityData } from '../../../src/write-path/write-community-data.js';
import { ensureBuilt, type ServerProcess, startServerProcess } from '../../http/server-processes.js';
import { createTestDatabase, engines, type TestDatabase } from '../../support/harness.js';
import { WebhookReceiver } from '../../support/webhook-receiver.js';

/** Emits `count` member.updated events in changes of `perChange`, through the one write path. */
async function emitEvents(database: Database, communityId: string, count: number, perChange: number): Promise<void> {
  for (let start = 0; start < count; start += perChange) {
    await writeCommunityData({ database, clock: systemClock }, communityId, async (w) => {
      for (let i = start; i < Math.min(count, start + perChange); i++) w.emit('member.updated', () => ({ id: `m${i}` }));
    });
  }
}

async function until(condition: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

for (const { engine, skip } of engines) {
  describe(`webhook delivery by real server processes [${engine}]`, { skip }, () => {
    let testDb: TestDatabase;
    const receiver = new WebhookReceiver();
    const servers: ServerProcess[] = [];
    let env: Record<string, string>;

    before(async () => {
      ensureBuilt();
      testDb = await createTestDatabase(engine);
      await receiver.start();
      env = { ...testDb.env, WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_MS: '1000' };
    });
    after(async () => {
      await Promise.all(servers.map((server) => server.stop()));
      await receiver.stop();
      await testDb?.drop();
    });

    const subscribe = async () => {
      const community = await createCommunity({ database: testDb.database, clock: systemClock }, { name: 'Hooks', plan: 'enterprise' });
      const endpoint = await createWebhookEndpoint(
        { database: testDb.database, clock: systemClock, allowPrivate: true, communityId: community.id },
        {
          url: receiver.url,
        },
      );
      receiver.secrets = [endpoint.secret];
      return { communityId: community.id, endpoint };
    };

    it('a server killed in the middle of a delivery loses nothing: another sends it again after the lease', async () => {
      const { communityId, endpoint } = await subscribe();
      const doomed = await startServerProcess(env);
      receiver.script.push('hang');
      await emitEvents(testDb.database, communityId, 1, 1);
      await receiver.waitFor(1);
      doomed.child.kill('SIGKILL');
      await doomed.stop();
      receiver.releaseHeld();
      const [inFlight] = await listWebhookDeliveries({ database: testDb.database }, endpoint.id, null);
      assert.equal(inFlight?.status, 'pending');
      assert.equal(inFlight?.attempts, 0, 'the killed server recorded nothing');
      servers.push(await startServerProcess(env));
      await receiver.waitFor(2);
      const [first, second] = receiver.received;
      assert.equal(second?.id, first?.id, 'the same webhook-id, so the receiver can deduplicate');
      assert.deepEqual(first?.verifiedWith, [endpoint.secret]);
      assert.deepEqual(second?.verifiedWith, [endpoint.secret]);
      await until(
        async () => (await listWebhookDeliveries({ database: testDb.database }, endpoint.id, 'delivered')).length === 1,
        10_000,
        'delivered',
      );
    });

    it('two server processes on one database send each delivery once', async () => {
      receiver.reset();
      const { communityId, endpoint } = await subscribe();
      servers.push(await startServerProcess(env));
      assert.equal(servers.length, 2);
      await emitEvents(testDb.database, communityId, 120, 6);
      await receiver.waitFor(120, 30_000);
      await until(
        async () => (await listWebhookDeliveries({ database: testDb.database }, endpoint.id, 'delivered', 1000)).length === 120,
        10_000,
        'all delivered',
      ).catch(async (e) => {
        const all = await listWebhookDeliveries({ database: testDb.database }, endpoint.id, null, 1000);
        console.log(JSON.stringify(all.filter((d) => d.status !== 'delivered')));
        console.log(servers.map((s) => s.output()).join('\n'));
        throw e;
      });
      // Past a poll interval of both servers: nothing more arrives.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.equal(receiver.received.length, 120);
      assert.equal(new Set(receiver.received.map((r) => r.id)).size, 120);
      assert.ok(receiver.received.every((r) => r.verifiedWith.length === 1));
      assert.equal(
        servers.every((server) => server.child.exitCode === null),
        true,
        servers.map((s) => s.output()).join('\n'),
      );
    });

    it('with WIRE_NAMES=slack the payload is the resource as the API answers it, in that spelling, and signed as sent', async () => {
      // Alone: any other server on this database would send deliveries in its own spelling.
      await Promise.all(servers.splice(0).map((server) => server.stop()));
      receiver.reset();
      const { communityId, endpoint } = await subscribe();
      const key = await createApiKey({ database: testDb.database, clock: systemClock, communityId }, { label: 'hooks' });
      const server = await startServerProcess({ ...env, WIRE_NAMES: 'slack' });
      try {
        const res = await fetch(`${server.baseUrl}/admin/v0/members`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'ada@example.org', full_name: 'Ada Lovelace' }),
        });
        assert.equal(res.status, 201);
        const member = ((await res.json()) as { data: { member: Record<string, unknown> } }).data.member;
        assert.ok('slack_profile_id' in member, 'the API answers in the slack spelling');
        await receiver.waitFor(1, 10_000);
        const [got] = receiver.received;
        assert.equal(got?.payload.type, 'member.created');
        assert.deepEqual(got?.payload.data, member);
        assert.deepEqual(got?.verifiedWith, [endpoint.secret]);
      } finally {
        await server.stop();
      }
    });
  });
}
