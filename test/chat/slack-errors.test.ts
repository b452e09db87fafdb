import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { LogLevel, WebClient } from '@slack/web-api';
import { classifySlackError, platformDetail, withDeadline } from '../../src/chat/slack-errors.js';
import { durationMs } from '../../src/shared/time.js';
import { type FakeChatServer, startFakeChatServer } from '../support/fake-chat-server.js';

// These tests pin down the shapes of the SDK's errors that the classifier relies on, so an
// upgrade of @slack/web-api that changes them fails here rather than in production.
describe('classifySlackError against real @slack/web-api errors', () => {
  let fake: FakeChatServer;
  let odd: ReturnType<typeof createServer>;
  let oddUrl: string;
  const client = (url: string, timeout = 2000) =>
    new WebClient(fake.validToken, {
      slackApiUrl: url,
      timeout,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
      logLevel: LogLevel.ERROR,
    });
  const failureOf = async (call: () => Promise<unknown>) =>
    classifySlackError(
      await call().then(
        () => assert.fail('expected a rejection'),
        (e: unknown) => e,
      ),
    );

  before(async () => {
    fake = await startFakeChatServer();
    // Answers what the fake never does: HTTP 500, 429 without Retry-After, a body that is not JSON.
    odd = createServer((req, res) => {
      if (req.url?.endsWith('/status500')) res.writeHead(500).end('oops');
      else if (req.url?.endsWith('/bare429')) res.writeHead(429).end('{"ok":false,"error":"ratelimited"}');
      else res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
    });
    await new Promise<void>((resolve) => odd.listen(0, '127.0.0.1', resolve));
    oddUrl = `http://127.0.0.1:${(odd.address() as AddressInfo).port}/api/`;
  });
  after(async () => {
    await fake.close();
    odd.closeAllConnections();
    await new Promise<void>((resolve) => odd.close(() => resolve()));
  });

  it('keeps Slack code and the needed scope of an ok:false answer', async () => {
    fake.setBehaviour('auth.test', { error: 'missing_scope' });
    assert.deepEqual(await failureOf(() => client(fake.url).auth.test()), { kind: 'platform', code: 'missing_scope', needed: null });
    fake.reset();
  });

  it('recognises the SDK own timeout as timeout', async () => {
    fake.setBehaviour('auth.test', { delayMs: 5000 });
    const failure = await failureOf(() => client(fake.url, 100).auth.test());
    assert.deepEqual([failure.kind, failure.code], ['transport', 'timeout']);
    fake.reset();
  });

  it('recognises a 429 with and without Retry-After as rate_limited', async () => {
    fake.setBehaviour('auth.test', { rateLimited: 3 });
    assert.equal((await failureOf(() => client(fake.url).auth.test())).code, 'rate_limited');
    fake.reset();
    assert.equal((await failureOf(() => client(oddUrl).apiCall('bare429'))).code, 'rate_limited');
  });

  it('recognises other HTTP statuses and non-JSON bodies', async () => {
    const http = await failureOf(() => client(oddUrl).apiCall('status500'));
    assert.deepEqual(http, { kind: 'transport', code: 'chat_http_error', detail: 'The chat platform answered with HTTP status 500.' });
    assert.equal((await failureOf(() => client(oddUrl).apiCall('html'))).code, 'chat_bad_response');
  });

  it('recognises an expired deadline as timeout', async () => {
    const failure = await failureOf(() => withDeadline(durationMs(20), () => new Promise(() => undefined)));
    assert.equal(failure.code, 'timeout');
  });

  it('names the missing scope in the detail only when it looks like a scope list', () => {
    assert.equal(platformDetail('missing_scope', 'admin.users:write'), 'The chat admin token lacks a required scope (admin.users:write).');
    assert.equal(platformDetail('missing_scope', 'x y <z>'), 'The chat admin token lacks a required scope.');
  });
});
