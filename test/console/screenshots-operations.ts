// The Webhooks, Slack and Activity pages' data for `npm run console:screenshots`: an endpoint with a
// failed and a delivered delivery, a Slack connection (the fake Web API) with a finished backfill.
import { randomBytes } from 'node:crypto';
import { addFeed } from '../../src/modules/chat-sync/commands/bound-feeds.js';
import { connectSync } from '../../src/modules/chat-sync/commands/connections.js';
import { DeliveryWorker } from '../../src/modules/webhooks/worker/deliveries.js';
import { SecretBox } from '../../src/shared/secret-box.js';
import { durationMs } from '../../src/shared/time.js';
import type { ConsoleServer } from '../support/browser-kit.js';
import { type FakeChatServer, startFakeChatServer } from '../support/fake-chat-server.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

export interface OperationsSeed {
  /** The server's environment (start the console server with it). */
  env: Record<string, string>;
  /** Fills the server; answers the paths to photograph instead of the pages' own. */
  seed: (server: ConsoleServer) => Promise<Record<string, string>>;
  stop: () => Promise<void>;
}

export async function operationsSeed(): Promise<OperationsSeed> {
  const fake: FakeChatServer = await startFakeChatServer();
  for (let i = 0; i < 6; i++) fake.addUser({ email: `user${i}@example.org`, id: `U${String(i).padStart(6, '0')}`, real_name: `User ${i}` });
  fake.addChannel({ id: 'C0GENERAL', name: 'general', num_members: 6 });
  for (let i = 0; i < 5; i++) fake.addMessage('C0GENERAL', { ts: `${1_700_000_000 + i * 60}.000100`, user: 'U000000', text: `hello ${i}` });
  const receiver = new WebhookReceiver();
  await receiver.start();
  return {
    env: { CHAT_API_URL: fake.url, SECRETS_KEY: randomBytes(32).toString('base64'), WEBHOOK_ALLOW_PRIVATE: 'true' },
    async seed(server) {
      const { database, clock, config } = server.t;
      const auth = server.community.auth;
      const endpoint = await server.t.request({
        method: 'POST',
        url: '/admin/v0/webhook_endpoints',
        headers: auth,
        payload: { url: receiver.url, events: ['member.created', 'member.updated'] },
      });
      const endpointId = endpoint.json<{ data: { id: string } }>().data.id;
      receiver.script.push(200, 500);
      for (const [email, name] of [
        ['ada@example.org', 'Ada Lovelace'],
        ['grace@example.org', 'Grace Hopper'],
      ])
        await server.t.request({ method: 'POST', url: '/admin/v0/members', headers: auth, payload: { email, full_name: name } });
      const worker = new DeliveryWorker({
        database,
        clock,
        log: { info: () => undefined, warn: () => undefined, error: () => undefined },
        allowPrivate: true,
        timeoutMs: durationMs(2000),
        batchSize: 1,
      });
      await worker.tick();
      await worker.tick();

      const box = new SecretBox(config.secrets);
      await connectSync(
        { database, clock, box, communityId: server.community.id },
        {
          botToken: fake.botToken,
          signingSecret: 'sig-secret',
          apiAppId: undefined,
          apiUrl: fake.url,
          timeoutMs: durationMs(3000),
        },
      );
      const options = { apiUrl: fake.url, timeoutMs: durationMs(3000), label: undefined };
      await addFeed({ database, clock, box, communityId: server.community.id }, { ...options, channelId: 'C0GENERAL', syncAll: true });
      const job = await server.t.request({ method: 'POST', url: '/admin/v0/chat/sync_jobs', headers: auth, payload: {} });
      const jobId = job.json<{ data: { id: string } }>().data.id;
      for (let i = 0; i < 200; i++) {
        const state = (await server.t.request({ method: 'GET', url: `/admin/v0/chat/sync_jobs/${jobId}`, headers: auth })).json<{
          data: { state: string };
        }>().data.state;
        if (state === 'succeeded' || state === 'failed') break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return { webhooks: `/console/webhooks?endpoint=${endpointId}` };
    },
    async stop() {
      await receiver.stop();
      await fake.close();
    },
  };
}
