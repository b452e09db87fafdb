import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { inspect } from 'node:util';
import { ChatUnavailableError, createSlackWorkspace, verifySlackToken } from '../../src/chat/index.js';
import { durationMs } from '../../src/shared/time.js';
import { type FakeChatServer, startFakeChatServer } from '../support/fake-chat-server.js';

const TIMEOUT_MS = 300;
// Room for timers and the event loop on a slow CI machine, still far below any real wait.
const SLACK_MS = 400;

/** A base URL on which nothing listens: a port that was just released. */
async function refusedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/api/`;
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await work();
  return { value, ms: performance.now() - start };
}

describe('Slack workspace: transport failures', () => {
  let fake: FakeChatServer;
  const workspace = (apiUrl = fake.url) =>
    createSlackWorkspace({ token: fake.validToken, apiUrl, timeoutMs: durationMs(TIMEOUT_MS), teamId: fake.teamId });

  before(async () => {
    fake = await startFakeChatServer();
    // The Slack SDK is loaded on first use (seconds on a loaded machine): load it before timing anything.
    await verifySlackToken({ token: fake.validToken, apiUrl: fake.url, timeoutMs: durationMs(10_000) });
  });
  after(() => fake.close());
  beforeEach(() => fake.reset());

  it('answers failed rate_limited at once on HTTP 429, without waiting for Retry-After', async () => {
    fake.setBehaviour('admin.users.invite', { rateLimited: 30 });
    const { value, ms } = await timed(() => workspace().inviteUser({ email: 'a@example.com', channelIds: ['C1'] }));
    assert.deepEqual([value.status, value.code], ['failed', 'rate_limited']);
    assert.ok(ms < 1000, `took ${ms} ms`);
    assert.equal(fake.calls.length, 1, 'no retry');
  });

  it('answers failed timeout within timeoutMs when the server never answers', async () => {
    fake.setBehaviour('admin.users.invite', { delayMs: 60_000 });
    const { value, ms } = await timed(() => workspace().inviteUser({ email: 'a@example.com', channelIds: ['C1'] }));
    assert.deepEqual([value.status, value.code], ['failed', 'timeout']);
    assert.ok(ms < TIMEOUT_MS + SLACK_MS, `took ${ms} ms`);
  });

  it('bounds the whole invitation, auth.test included, by one timeoutMs', async () => {
    fake.setBehaviour('auth.test', { delayMs: 200 });
    fake.setBehaviour('admin.users.invite', { delayMs: 200 });
    const ws = createSlackWorkspace({ token: fake.validToken, apiUrl: fake.url, timeoutMs: durationMs(TIMEOUT_MS) });
    const { value, ms } = await timed(() => ws.inviteUser({ email: 'a@example.com', channelIds: ['C1'] }));
    assert.equal(value.code, 'timeout');
    assert.ok(ms < TIMEOUT_MS + SLACK_MS, `took ${ms} ms`);
  });

  it('answers failed chat_unreachable when the connection is refused', async () => {
    const result = await workspace(await refusedUrl()).inviteUser({ email: 'a@example.com', channelIds: ['C1'] });
    assert.deepEqual([result.status, result.code, result.channel_ids], ['failed', 'chat_unreachable', ['C1']]);
  });

  it('lookupUserByEmail throws ChatUnavailableError on rate limit, timeout and refusal', async () => {
    fake.setBehaviour('users.lookupByEmail', { rateLimited: 30 });
    await assert.rejects(
      workspace().lookupUserByEmail('a@example.com'),
      (e) => e instanceof ChatUnavailableError && e.code === 'rate_limited',
    );
    fake.setBehaviour('users.lookupByEmail', { delayMs: 60_000 });
    const { ms } = await timed(() =>
      assert.rejects(workspace().lookupUserByEmail('a@example.com'), (e) => e instanceof ChatUnavailableError && e.code === 'timeout'),
    );
    assert.ok(ms < TIMEOUT_MS + SLACK_MS, `took ${ms} ms`);
    const refused = workspace(await refusedUrl());
    await assert.rejects(
      refused.lookupUserByEmail('a@example.com'),
      (e) => e instanceof ChatUnavailableError && e.code === 'chat_unreachable',
    );
  });

  it('never lets the token appear in a result or an error', async () => {
    const secret = fake.validToken;
    const outputs: unknown[] = [];
    const ws = workspace();
    fake.setBehaviour('admin.users.invite', { rateLimited: 5 });
    outputs.push(await ws.inviteUser({ email: 'a@example.com', channelIds: ['C1'] }));
    fake.setBehaviour('admin.users.invite', { delayMs: 60_000 });
    outputs.push(await ws.inviteUser({ email: 'a@example.com', channelIds: ['C1'] }));
    fake.setBehaviour('admin.users.invite', { error: 'missing_scope' });
    outputs.push(await ws.inviteUser({ email: 'a@example.com', channelIds: ['C1'] }));
    outputs.push(await workspace(await refusedUrl()).inviteUser({ email: 'a@example.com', channelIds: ['C1'] }));
    for (const behaviour of [{ rateLimited: 5 }, { delayMs: 60_000 }, { error: 'invalid_auth' }] as const) {
      fake.setBehaviour('users.lookupByEmail', behaviour);
      outputs.push(await ws.lookupUserByEmail('a@example.com').catch((e: unknown) => e));
    }
    outputs.push(
      await workspace(await refusedUrl())
        .lookupUserByEmail('a@example.com')
        .catch((e: unknown) => e),
    );
    outputs.push(await verifySlackToken({ token: secret, apiUrl: await refusedUrl(), timeoutMs: durationMs(TIMEOUT_MS) }));
    for (const output of outputs) {
      const renderings = [JSON.stringify(output), inspect(output, { depth: 10 }), String(output)];
      if (output instanceof Error) renderings.push(output.message, output.stack ?? '');
      for (const text of renderings) assert.ok(!text.includes(secret), `token leaked in: ${text.slice(0, 200)}`);
    }
    assert.equal(outputs.filter((o) => o instanceof ChatUnavailableError).length, 4);
  });
});
