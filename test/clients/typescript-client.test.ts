import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AdminApiError, createClient, type RetryEvent, unwrap } from '../../clients/typescript/src/index.js';
import { createClient as createSlackClient } from '../../clients/typescript/src/slack.js';
import { createTestDatabase, engines, type TestDatabase } from '../support/harness.js';
import { type ListeningApp, listen, newCommunity, ScriptedProxy } from './client-servers.js';

// The client of clients/typescript against the real server on a real port of 127.0.0.1, on both
// engines. A scripted proxy in front of it stands for what happens on the way (a lost answer, a 503,
// a dropped connection); the 429s come from the server's own rate limit.

const uuidV4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const day = 24 * 60 * 60 * 1000;
const inDays = (n: number) => new Date(Date.now() + n * day).toISOString();
/** Short waits where the server names none, so that the tests do not sleep for nothing. */
const quick = { backoffMs: 20, maxBackoffMs: 40 };

for (const { engine, skip } of engines) {
  describe(`typescript client against a real server [${engine}]`, { skip }, () => {
    let testDb: TestDatabase;
    let server: ListeningApp;
    let limited: ListeningApp;
    let slack: ListeningApp;
    let proxy: ScriptedProxy;
    before(async () => {
      testDb = await createTestDatabase(engine);
      server = await listen(testDb.database);
      // Two requests a second per key: the third within a second is the server's real 429.
      limited = await listen(testDb.database, { RATE_LIMIT_PER_SECOND: '2' });
      slack = await listen(testDb.database, { WIRE_NAMES: 'slack' });
      proxy = await new ScriptedProxy(server.baseUrl).start();
    });
    after(async () => {
      await proxy?.stop();
      for (const app of [server, limited, slack]) await app?.app.close();
      await testDb?.drop();
    });

    const clientOf = async (baseUrl: string, retry = {}, onRetry?: (event: RetryEvent) => void) => {
      const { key } = await newCommunity(testDb.database);
      return createClient({ baseUrl, apiKey: key, retry: { ...quick, ...retry }, onRetry });
    };
    const createEvent = async (admin: ReturnType<typeof createClient>, title: string, days: number) =>
      unwrap(await admin.POST('/admin/v0/calendar_events', { body: { title, start_date: inDays(days), status: 'published' } })).data;

    it('pages through a list with the async iterator, one request per page, until has_next is false', async () => {
      const admin = await clientOf(proxy.baseUrl);
      for (let n = 1; n <= 7; n++) await createEvent(admin, `Event ${n}`, n);
      proxy.plan('GET', '/admin/v0/calendar_events', 'forward');
      const titles: string[] = [];
      for await (const event of admin.paginate('/admin/v0/calendar_events', {
        params: { query: { time_filter: 'upcoming', per_page: 3 } },
      })) {
        titles.push(event.title);
      }
      assert.deepEqual(titles, ['Event 1', 'Event 2', 'Event 3', 'Event 4', 'Event 5', 'Event 6', 'Event 7']);
      const pages = proxy.seen.map((request) => new URL(request.url, proxy.baseUrl).searchParams);
      assert.deepEqual(
        pages.map((query) => [query.get('page'), query.get('per_page'), query.get('time_filter')]),
        [
          ['0', '3', 'upcoming'],
          ['1', '3', 'upcoming'],
          ['2', '3', 'upcoming'],
        ],
      );
      // Starting from a later page, and the pages themselves.
      const envelopes = [];
      for await (const page of admin.pages('/admin/v0/calendar_events', {
        params: { query: { time_filter: 'upcoming', per_page: 3, page: 1 } },
      })) {
        envelopes.push([page.page, page.count, page.has_next]);
      }
      assert.deepEqual(envelopes, [
        [1, 3, true],
        [2, 1, false],
      ]);
      // Leaving the loop early asks for no further page.
      proxy.plan('GET', '/admin/v0/calendar_events', 'forward');
      for await (const event of admin.paginate('/admin/v0/calendar_events', { params: { query: { per_page: 3 } } })) {
        assert.equal(event.title, 'Event 1', 'earliest first');
        break;
      }
      assert.equal(proxy.seen.length, 1);
    });

    it('gets one event, typed, and sends the key as a bearer token', async () => {
      const admin = await clientOf(proxy.baseUrl);
      const created = await createEvent(admin, 'Typed', 2);
      proxy.plan('GET', '/admin/v0/calendar_events/', 'forward');
      const result = await admin.GET('/admin/v0/calendar_events/{calendar_event_id}', {
        params: { path: { calendar_event_id: created.id } },
      });
      assert.equal(result.response.status, 200);
      assert.equal(result.data?.data.title, 'Typed');
      assert.equal(result.data?.data.status, 'published');
      assert.match(String(proxy.seen[0]?.headers.authorization), /^Bearer .+/);
      assert.equal(proxy.seen[0]?.headers['idempotency-key'], undefined, 'a GET carries no Idempotency-Key');
    });

    it('creates an event once although its answer was lost: the retry carries the same Idempotency-Key and is replayed', async () => {
      const retries: RetryEvent[] = [];
      const admin = await clientOf(proxy.baseUrl, {}, (event) => retries.push(event));
      proxy.plan('POST', '/admin/v0/calendar_events', { forwardThenAnswer: 503, retryAfter: '1' });
      const result = await admin.POST('/admin/v0/calendar_events', {
        body: { title: 'Only once', start_date: inDays(3), status: 'published' },
      });
      assert.equal(result.response.status, 201);
      assert.equal(
        result.response.headers.get('x-idempotent-replayed'),
        'true',
        'the server answered the retry from its idempotency store',
      );
      assert.equal(proxy.seen.length, 2);
      const [first, second] = proxy.seen;
      assert.match(String(first?.headers['idempotency-key']), uuidV4);
      assert.equal(second?.headers['idempotency-key'], first?.headers['idempotency-key']);
      assert.deepEqual(
        retries.map((event) => [event.method, event.status, event.delayMs]),
        [['POST', 503, 1000]],
      );
      const listed = unwrap(await admin.GET('/admin/v0/calendar_events', { params: { query: { time_filter: 'all' } } })).data;
      assert.equal(listed.total_records, 1, 'one event, not two');
      assert.equal(listed.records[0]?.id, result.data?.data.id);

      // A PATCH likewise, and the next call is another operation with a key of its own.
      const id = result.data?.data.id ?? '';
      proxy.plan('PATCH', '/admin/v0/calendar_events/', { forwardThenAnswer: 503, retryAfter: '0' });
      const patched = await admin.PATCH('/admin/v0/calendar_events/{calendar_event_id}', {
        params: { path: { calendar_event_id: id } },
        body: { title: 'Renamed once' },
      });
      assert.equal(patched.response.status, 200);
      assert.equal(patched.response.headers.get('x-idempotent-replayed'), 'true');
      assert.equal(patched.data?.data.title, 'Renamed once');
      assert.equal(proxy.seen.length, 2);
      assert.equal(proxy.seen[1]?.headers['idempotency-key'], proxy.seen[0]?.headers['idempotency-key']);
      const patchKey = proxy.seen[0]?.headers['idempotency-key'];
      assert.match(String(patchKey), uuidV4);
      assert.notEqual(patchKey, first?.headers['idempotency-key']);
    });

    it('keeps an Idempotency-Key the caller chose', async () => {
      const admin = await clientOf(proxy.baseUrl);
      const key = crypto.randomUUID();
      proxy.plan('POST', '/admin/v0/calendar_events', 'forward', 'forward');
      const body = { title: 'Mine', start_date: inDays(4), status: 'published' as const };
      const one = await admin.POST('/admin/v0/calendar_events', { body, params: { header: { 'idempotency-key': key } } });
      const two = await admin.POST('/admin/v0/calendar_events', { body, params: { header: { 'idempotency-key': key } } });
      assert.deepEqual(
        proxy.seen.map((request) => request.headers['idempotency-key']),
        [key, key],
      );
      assert.equal(two.response.headers.get('x-idempotent-replayed'), 'true');
      assert.equal(two.data?.data.id, one.data?.data.id);
    });

    it("waits out the server's 429 for the Retry-After it names, then succeeds", async () => {
      const retries: RetryEvent[] = [];
      const admin = await clientOf(limited.baseUrl, {}, (event) => retries.push(event));
      const started = Date.now();
      // Ten quick requests cannot all fall in different windows of a second: some are refused.
      for (let n = 0; n < 10 && retries.length === 0; n++) {
        const result = await admin.GET('/admin/v0/api_key/me');
        assert.equal(result.response.status, 200);
      }
      assert.ok(retries.length >= 1, 'at least one request was refused and retried');
      for (const event of retries) {
        assert.equal(event.status, 429);
        assert.equal(event.delayMs % 1000, 0, 'the wait is the Retry-After in whole seconds');
        assert.ok(event.delayMs >= 1000);
      }
      assert.ok(Date.now() - started >= 1000, 'the client did wait');
    });

    it('hands a 429 back as a typed error when its Retry-After is beyond the cap', async () => {
      const retries: RetryEvent[] = [];
      const admin = await clientOf(limited.baseUrl, { maxRetryAfterMs: 0 }, (event) => retries.push(event));
      let refused: AdminApiError | undefined;
      for (let n = 0; n < 10 && !refused; n++) {
        try {
          unwrap(await admin.GET('/admin/v0/api_key/me'));
        } catch (error) {
          if (!(error instanceof AdminApiError)) throw error;
          refused = error;
        }
      }
      assert.ok(refused, 'the limit of 2 a second refused one of 10 quick requests');
      assert.equal(refused.status, 429);
      assert.equal(refused.code, 'rate_limited');
      assert.ok((refused.retryAfterSeconds ?? 0) >= 1);
      assert.deepEqual(retries, []);
    });

    it('retries a 503 after its Retry-After, or after a short backoff without one, and a dropped connection of a GET', async () => {
      const retries: RetryEvent[] = [];
      const admin = await clientOf(proxy.baseUrl, {}, (event) => retries.push(event));
      proxy.plan('GET', '/admin/v0/api_key/me', { answer: 503, retryAfter: '1' }, { answer: 503 }, 'drop');
      const result = await admin.GET('/admin/v0/api_key/me');
      assert.equal(result.response.status, 200);
      assert.equal(proxy.seen.length, 4);
      assert.deepEqual(
        retries.map((event) => [event.attempt, event.status, event.error === undefined]),
        [
          [1, 503, true],
          [2, 503, true],
          [3, undefined, false],
        ],
      );
      assert.equal(retries[0]?.delayMs, 1000);
      assert.ok((retries[1]?.delayMs ?? 0) <= quick.maxBackoffMs);
    });

    it('retries the 409 of a key still in flight when it names Retry-After, and no other 409', async () => {
      const retries: RetryEvent[] = [];
      const admin = await clientOf(proxy.baseUrl, {}, (event) => retries.push(event));
      const body = { title: 'In flight', start_date: inDays(6), status: 'published' as const };
      proxy.plan('POST', '/admin/v0/calendar_events', { answer: 409, retryAfter: '0' });
      const created = await admin.POST('/admin/v0/calendar_events', { body });
      assert.equal(created.response.status, 201);
      assert.equal(proxy.seen.length, 2);
      assert.equal(proxy.seen[1]?.headers['idempotency-key'], proxy.seen[0]?.headers['idempotency-key']);
      assert.deepEqual(
        retries.map((event) => [event.status, event.delayMs]),
        [[409, 0]],
      );
      proxy.plan('POST', '/admin/v0/calendar_events', { answer: 409 });
      const refused = await admin.POST('/admin/v0/calendar_events', { body });
      assert.equal(refused.response.status, 409);
      assert.equal(proxy.seen.length, 1);
    });

    it('stops waiting between attempts when the call is aborted', async () => {
      const controller = new AbortController();
      // Aborted once the wait of 30 s the answer asked for has begun.
      const admin = await clientOf(proxy.baseUrl, {}, () => setTimeout(() => controller.abort(), 20));
      proxy.plan('GET', '/admin/v0/api_key/me', { answer: 503, retryAfter: '30' });
      const started = Date.now();
      await assert.rejects(admin.GET('/admin/v0/api_key/me', { signal: controller.signal }), (error: unknown) => {
        return error instanceof Error && error.name === 'AbortError';
      });
      assert.ok(Date.now() - started < 10_000, 'not the 30 s the server asked for');
      assert.equal(proxy.seen.length, 1);
    });

    it('gives up after the bounded number of attempts and throws the last answer as a typed error', async () => {
      const admin = await clientOf(proxy.baseUrl, { maxAttempts: 3 });
      proxy.plan('GET', '/admin/v0/api_key/me', { answer: 503 }, { answer: 503 }, { answer: 503 }, { answer: 503 });
      const result = await admin.GET('/admin/v0/api_key/me');
      assert.equal(proxy.seen.length, 3);
      assert.equal(result.response.status, 503);
      assert.throws(
        () => unwrap(result),
        (error: unknown) => error instanceof AdminApiError && error.status === 503 && error.code === 'proxy_says',
      );
    });

    it('answers errors typed as the error body, and unwrap throws them as AdminApiError', async () => {
      const admin = await clientOf(server.baseUrl);
      const missing = await admin.GET('/admin/v0/calendar_events/{calendar_event_id}', {
        params: { path: { calendar_event_id: 'abcdefghijkl' } },
      });
      assert.equal(missing.response.status, 404);
      assert.equal(missing.error?.error.code, 'not_found');
      assert.equal(typeof missing.error?.error.hint, 'string');
      assert.throws(
        () => unwrap(missing),
        (error: unknown) =>
          error instanceof AdminApiError &&
          error.status === 404 &&
          error.code === 'not_found' &&
          error.message === missing.error?.error.message &&
          typeof error.requestId === 'string',
      );
      // What the types cannot see (an empty title, a malformed date) the server refuses, typed as well.
      const invalid = await admin.POST('/admin/v0/calendar_events', {
        body: { title: '', start_date: 'not a date', status: 'published' },
      });
      assert.equal(invalid.response.status, 400);
      assert.equal(invalid.error?.error.code, 'validation_failed');
      // A paged list that fails throws from the iterator.
      const denied = createClient({ baseUrl: server.baseUrl, apiKey: 'not-a-key', retry: quick });
      await assert.rejects(
        async () => {
          for await (const _event of denied.paginate('/admin/v0/calendar_events')) assert.fail('no record expected');
        },
        (error: unknown) => error instanceof AdminApiError && error.status === 401,
      );
    });

    it('speaks the slack spelling with the client generated from that document', async () => {
      const { key } = await newCommunity(testDb.database);
      const admin = createSlackClient({ baseUrl: slack.baseUrl, apiKey: key, retry: quick });
      const created = unwrap(
        await admin.POST('/admin/v0/calendar_events', {
          body: { title: 'Slack way', start_date: inDays(5), status: 'published', luma_event_id: 'evt-luma-1', description_text: 'Hi' },
        }),
      ).data;
      assert.equal(created.luma_event_id, 'evt-luma-1');
      assert.ok(Array.isArray(created.description_slack_blocks));
      const listed = [];
      for await (const event of admin.paginate('/admin/v0/calendar_events')) listed.push(event.luma_event_id);
      assert.deepEqual(listed, ['evt-luma-1']);
    });
  });
}
