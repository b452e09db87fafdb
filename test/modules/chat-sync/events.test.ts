/**
 * POST /chat/events: Slack's signed deliveries, stored then applied by the server's worker through
 * the write path; checked through the API (feed posts, Home) on both engines, against the fake Slack.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { buildApp } from '../../../src/app.js';
import { adaRenamedEvent, chatEventsApplied, connectedFeed, deliverSigned, eventEnvelope } from '../../support/chat-events-kit.js';
import { startFakeChatServer } from '../../support/fake-chat-server.js';
import { describeEachEngine, type TestApp } from '../../support/harness.js';

const fake = await startFakeChatServer();
after(() => fake.close());

describeEachEngine(
  'POST /chat/events',
  (ctx) => {
    let t: TestApp;
    let community: Awaited<ReturnType<TestApp['community']>>;
    let feedId: string;
    let seq = 0;

    before(async () => {
      t = ctx();
      fake.reset();
      fake.addUser({ email: 'ada@example.com', id: 'U0ADA', real_name: 'Ada Lovelace' });
      fake.addUser({ email: 'bob@example.com', id: 'U0BOB', real_name: 'Bob Builder' });
      fake.addChannel({ id: 'C0LIVE', name: 'live', num_members: 3 });
      community = await t.community();
      feedId = await connectedFeed(t, fake, community.id, 'C0LIVE');
    });

    const envelope = (event: Record<string, unknown>, eventId = `Ev${String(++seq).padStart(8, '0')}`, team = fake.teamId) =>
      eventEnvelope(t, team, event, eventId);

    const deliver = (body: unknown, options: Parameters<typeof deliverSigned>[2] = {}) => deliverSigned(t, body, options);

    const drained = () => chatEventsApplied(t);

    const get = async (url: string) => {
      const response = await t.request({ method: 'GET', url, headers: community.auth });
      assert.equal(response.statusCode, 200, response.body);
      return response.json<{ data: Record<string, unknown> & { records: Record<string, unknown>[]; total_records: number } }>().data;
    };
    const postOf = async (ts: string) => {
      const page = await get(`/admin/v0/feeds/${feedId}/posts?per_page=50`);
      return page.records.find((p) => (p.chat_message as { permalink: string }).permalink.endsWith(`p${ts.replace('.', '')}`));
    };

    const message = (ts: string, extra: Record<string, unknown> = {}) => ({
      type: 'message',
      channel: 'C0LIVE',
      user: 'U0ADA',
      text: `hello ${ts}`,
      ts,
      blocks: [
        { type: 'rich_text', block_id: 'x', elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: `hello ${ts}` }] }] },
      ],
      ...extra,
    });

    /** Slack's message_deleted event (at `eventTs`) of the message `previous`. */
    const deletion = (previous: Record<string, unknown>, eventTs: string) =>
      envelope({
        type: 'message',
        subtype: 'message_deleted',
        channel: 'C0LIVE',
        hidden: true,
        deleted_ts: previous.ts,
        ts: eventTs,
        previous_message: previous,
      });

    it('answers url_verification signed with a connected app secret, refuses it unsigned', async () => {
      const ok = await deliver({ token: 'x', challenge: 'challenge-abc', type: 'url_verification' });
      assert.equal(ok.statusCode, 200, ok.body);
      assert.deepEqual(JSON.parse(ok.body), { challenge: 'challenge-abc' });
      const bad = await deliver({ token: 'x', challenge: 'challenge-abc', type: 'url_verification' }, { secret: 'wrong' });
      assert.equal(bad.statusCode, 401);
    });

    it('refuses a bad signature, a stale timestamp, a missing signature and an unknown team; stores none of them', async () => {
      const bad = await deliver(envelope(message('1700000001.000100')), { secret: 'not-the-secret' });
      assert.equal(bad.statusCode, 401);
      assert.equal(JSON.parse(bad.body).error.code, 'unauthorized');
      const stale = await deliver(envelope(message('1700000001.000100')), { timestamp: Math.floor(t.clock.now() / 1000) - 301 });
      assert.equal(stale.statusCode, 401);
      assert.match(JSON.parse(stale.body).error.message, /too old/);
      const unsigned = await t.app.inject({
        method: 'POST',
        url: '/chat/events',
        payload: JSON.stringify(envelope(message('1.1'))),
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(unsigned.statusCode, 401);
      const unknown = await deliver(envelope(message('1700000001.000100'), 'EvUNKNOWN', 'T0OTHER'));
      assert.equal(unknown.statusCode, 404);
      const otherApp = await deliver({ ...envelope(message('1700000001.000100')), api_app_id: 'A0OTHER' });
      assert.equal(otherApp.statusCode, 401);
      const stored = await t.database.db.selectFrom('chat_event_queue').select('event_id').execute();
      assert.deepEqual(stored, []);
    });

    it('a delivered message shows up in the feed posts and in Home, with its author; a retried duplicate is applied once', async () => {
      const before = (await get('/admin/v0/feeds/home/posts?per_page=1')).total_records;
      const body = envelope(message('1700000100.000200'));
      const first = await deliver(body);
      assert.equal(first.statusCode, 200, first.body);
      const retry = await deliver(body, { retry: 1 });
      assert.equal(retry.statusCode, 200);
      await drained();
      const post = await postOf('1700000100.000200');
      assert.ok(post, 'the post is listed');
      assert.equal(post.body_plaintext, 'hello 1700000100.000200');
      assert.equal((post.author as { chat_user_id: string }).chat_user_id, 'U0ADA');
      assert.equal((post.chat_message as { permalink: string }).permalink, `${fake.teamUrl}archives/C0LIVE/p1700000100000200`);
      const home = await get('/admin/v0/feeds/home/posts?per_page=50');
      assert.equal(home.total_records, before + 1);
      assert.ok(home.records.some((p) => p.id === post.id));
      // chat_event_queue counts the clock's milliseconds (src/db/schema.ts), also when the write path marks a delivery applied.
      const queued = await t.database.db
        .selectFrom('chat_event_queue')
        .select(['received_at', 'applied_at'])
        .where('event_id', '=', body.event_id)
        .executeTakeFirstOrThrow();
      assert.deepEqual([Number(queued.received_at), Number(queued.applied_at)], [t.clock.now(), t.clock.now()]);
    });

    it('reactions, replies and edits change the counts and the text; duplicates count once', async () => {
      const ts = '1700000200.000300';
      await deliver(envelope(message(ts)));
      const reaction = envelope({
        type: 'reaction_added',
        user: 'U0BOB',
        reaction: 'tada',
        item_user: 'U0ADA',
        item: { type: 'message', channel: 'C0LIVE', ts },
        event_ts: '1700000201.000000',
      });
      await deliver(reaction);
      await deliver(reaction, { retry: 2 });
      // Ada's :eyes: comes and goes: the count steps up and back down.
      for (const [type, eventTs] of [
        ['reaction_added', '1700000202.000000'],
        ['reaction_removed', '1700000203.000000'],
      ]) {
        await deliver(
          envelope({ type, user: 'U0ADA', reaction: 'eyes', item: { type: 'message', channel: 'C0LIVE', ts }, event_ts: eventTs }),
        );
      }
      await deliver(envelope(message('1700000300.000000', { thread_ts: ts, user: 'U0BOB', text: 'a reply' })));
      await drained();
      let post = await postOf(ts);
      assert.equal(post?.reactions_count, 1);
      assert.equal(post?.comments_count, 1);
      assert.equal(post?.latest_activity_at, '2023-11-14 22:18:20+00');

      await deliver(
        envelope({
          type: 'message',
          subtype: 'message_changed',
          channel: 'C0LIVE',
          hidden: true,
          ts: '1700000400.000000',
          message: message(ts, {
            text: 'edited text',
            blocks: [
              {
                type: 'rich_text',
                block_id: 'y',
                elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: 'edited text' }] }],
              },
            ],
            edited: { user: 'U0ADA', ts: '1700000400.000000' },
          }),
          previous_message: message(ts),
        }),
      );
      await drained();
      post = await postOf(ts);
      assert.equal(post?.body_plaintext, 'edited text');
      assert.equal(post?.reactions_count, 1, 'counts survive an edit that does not carry them');
      assert.equal(post?.comments_count, 1);

      await deliver(
        deletion({ type: 'message', user: 'U0BOB', ts: '1700000300.000000', thread_ts: ts, text: 'a reply' }, '1700000500.000000'),
      );
      await drained();
      assert.equal((await postOf(ts))?.comments_count, 0);
    });

    it('a deleted message is no longer listed', async () => {
      const ts = '1700000600.000000';
      await deliver(envelope(message(ts)));
      await drained();
      assert.ok(await postOf(ts));
      await deliver(deletion(message(ts), '1700000601.000000'));
      await drained();
      assert.equal(await postOf(ts), undefined);
    });

    it('user_change updates the author of posts at once (cached answers stay exact); channel_rename and archive reach the feed', async () => {
      await get(`/admin/v0/feeds/${feedId}/posts?per_page=50`);
      await deliver(envelope(adaRenamedEvent(fake.teamId)));
      await drained();
      const post = await postOf('1700000100.000200');
      assert.equal((post?.author as { preferred_name: string }).preferred_name, 'Countess');

      fake.addChannel({ id: 'C0LIVE', name: 'live-renamed', num_members: 4 });
      await deliver(envelope({ type: 'channel_rename', channel: { id: 'C0LIVE', name: 'live-renamed', created: 1700000000 } }));
      await drained();
      const feed = await get(`/admin/v0/feeds/${feedId}`);
      assert.equal(feed.chat_channel_name, 'live-renamed');
      assert.equal(feed.chat_channel_num_members, 4);

      fake.addChannel({ id: 'C0LIVE', name: 'live-renamed', num_members: 4, is_archived: true });
      const homeBefore = (await get('/admin/v0/feeds/home/posts?per_page=1')).total_records;
      await deliver(envelope({ type: 'channel_archive', channel: 'C0LIVE', user: 'U0ADA' }));
      await drained();
      assert.equal((await get(`/admin/v0/feeds/${feedId}`)).is_archived, true);
      assert.ok(homeBefore > 0);
      assert.equal((await get('/admin/v0/feeds/home/posts?per_page=1')).total_records, 0);
      fake.addChannel({ id: 'C0LIVE', name: 'live-renamed', num_members: 4, is_archived: false });
      await deliver(envelope({ type: 'channel_unarchive', channel: 'C0LIVE', user: 'U0ADA' }));
      await drained();
      assert.equal((await get('/admin/v0/feeds/home/posts?per_page=1')).total_records, homeBefore);
    });

    it('with two instances on one database, each delivery is applied once', async () => {
      const second = await buildApp({ config: t.config, database: t.database, clock: t.clock, logger: false });
      await second.ready();
      try {
        const ts = '1700000700.000000';
        await deliver(envelope(message(ts)));
        await drained();
        const deliveries = [];
        for (let i = 0; i < 30; i++) {
          const body = envelope({
            type: 'reaction_added',
            user: 'U0BOB',
            reaction: `r${i}`,
            item: { type: 'message', channel: 'C0LIVE', ts },
            event_ts: `1700000701.${i}`,
          });
          // Slack's retry of the same event reaching the other instance.
          deliveries.push(deliver(body), deliver(body, { app: second, retry: 1 }));
        }
        for (const response of await Promise.all(deliveries)) assert.equal(response.statusCode, 200);
        await drained();
        assert.equal((await postOf(ts))?.reactions_count, 30);
      } finally {
        await second.close();
      }
    });
  },
  { env: { CHAT_API_URL: fake.url, CHAT_TIMEOUT_MS: '2000' } },
);
