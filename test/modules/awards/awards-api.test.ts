import assert from 'node:assert/strict';
import { after, before, beforeEach, it } from 'node:test';
import { runImport } from '../../../src/import/run-import.js';
import { createApiKey } from '../../../src/modules/api-keys/api-keys.commands.js';
import { createAward } from '../../../src/modules/awards/awards.commands.js';
import { notificationRetryDelay } from '../../../src/modules/awards/awards.worker.js';
import { connectSync } from '../../../src/modules/chat-sync/commands/connections.js';
import { DeliveryWorker } from '../../../src/modules/webhooks/worker/deliveries.js';
import { permissions } from '../../../src/shared/permissions.js';
import { SecretBox } from '../../../src/shared/secret-box.js';
import { durationMs } from '../../../src/shared/time.js';
import { startFakeChatServer } from '../../support/fake-chat-server.js';
import { describeEachEngine, type TestApp } from '../../support/harness.js';
import { WebhookReceiver } from '../../support/webhook-receiver.js';
import { collectingLog } from '../webhooks/webhook-test-kit.js';

const fake = await startFakeChatServer();
after(() => fake.close());

const profileId = (n: number) => `a0000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const box = new SecretBox({ key: null, previousKeys: [] });

/** Resolves once `check` holds, polling (the worker sends after the answer, on its own time). */
async function eventually(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describeEachEngine(
  'awards: POST /awards/{award_id}/assign',
  (ctx) => {
    const receiver = new WebhookReceiver();
    before(() => receiver.start());
    after(() => receiver.stop());
    beforeEach(() => {
      fake.reset();
      receiver.reset();
      ctx().clock.set(Date.now());
    });

    let botCommunity: Awaited<ReturnType<TestApp['community']>> | undefined;
    let awards = 0;

    /**
     * A community with three profiles (Ada U1, Bob U2, Cy without Slack) and a new award; with `bot`,
     * the one community of the suite connected to the fake Slack (a workspace serves one community).
     */
    async function setUp(t: TestApp, options: { bot?: boolean } = {}) {
      let community = options.bot ? botCommunity : undefined;
      if (!community) {
        community = await t.community('enterprise');
        await runImport(
          { database: t.database, clock: t.clock, communityId: community.id },
          {
            profiles: [
              { profile_id: profileId(1), email: 'ada@example.com', first_name: 'Ada', preferred_name: 'Ada', chat_user_id: 'U1' },
              { profile_id: profileId(2), email: 'bob@example.com', first_name: 'Bob', preferred_name: 'Bob', chat_user_id: 'U2' },
              { profile_id: profileId(3), email: 'cy@example.com', first_name: 'Cy', preferred_name: 'Cy' },
            ],
          },
        );
        if (options.bot) {
          await connectSync(
            { database: t.database, clock: t.clock, box, communityId: community.id },
            {
              botToken: fake.botToken,
              signingSecret: 'secret',
              apiAppId: 'A0APP',
              apiUrl: fake.url,
              timeoutMs: durationMs(2000),
            },
          );
          botCommunity = community;
        }
      }
      const award = await createAward(
        { database: t.database, clock: t.clock, communityId: community.id },
        {
          name: `Helper of the month ${++awards}`,
          description: 'Answered the most questions',
          emoji: ':star:',
        },
      );
      return { ...community, award };
    }

    const holders = async (t: TestApp, communityId: string, awardId: string) =>
      (
        await t.database.db
          .selectFrom('award_assignments')
          .select(['profile_id'])
          .where('community_id', '=', communityId)
          .where('award_id', '=', awardId)
          .orderBy('profile_id')
          .execute()
      ).map((r) => r.profile_id);

    const assign = (auth: Record<string, string>, awardId: string, payload: unknown, headers: Record<string, string> = {}) =>
      ctx().request({
        method: 'POST',
        url: `/admin/v0/awards/${awardId}/assign`,
        headers: { ...auth, ...headers },
        payload: payload as Record<string, unknown>,
      });

    it('assigns by chat_user_id, email and profile_id, answering {success: true}', async () => {
      const { id, auth, award } = await setUp(ctx());
      for (const [n, recipient] of [
        [1, { chat_user_id: 'U1' }],
        [2, { email: '  BOB@example.com ' }],
        [3, { profile_id: profileId(3).toUpperCase() }],
      ] as const) {
        const answer = await assign(auth, award.id, { recipient });
        assert.equal(answer.statusCode, 200, answer.body);
        assert.deepEqual(answer.json(), { success: true });
        assert.ok((await holders(ctx(), id, award.id)).includes(profileId(n)), JSON.stringify(recipient));
      }
    });

    it('refuses a recipient or sender naming none, two, or an unknown identifier: 400 naming the field', async () => {
      const { auth, award } = await setUp(ctx());
      const cases: [unknown, RegExp][] = [
        [{}, /recipient/],
        [{ recipient: {} }, /body\.recipient: must hold exactly one of chat_user_id, email, profile_id \(none was given\)/],
        [{ recipient: { chat_user_id: 'U1', email: 'ada@example.com' } }, /body\.recipient: .*got chat_user_id and email/],
        [{ recipient: { name: 'Ada' } }, /recipient.*name|name.*recipient/],
        [{ recipient: { chat_user_id: 'U1' }, sender: {} }, /body\.sender: must hold exactly one/],
        [{ recipient: { chat_user_id: 'U1' }, sender: { slack_user_id: 'U2' } }, /sender.*slack_user_id|slack_user_id/],
        [{ recipient: { email: '   ' } }, /body\.recipient\.email: must not be blank/],
        [{ recipient: { chat_user_id: 'U1' }, send_anonymously: 'yes' }, /send_anonymously/],
        [{ recipient: { chat_user_id: 'U1' }, extra: 1 }, /extra/],
      ];
      for (const [payload, message] of cases) {
        const answer = await assign(auth, award.id, payload);
        assert.equal(answer.statusCode, 400, JSON.stringify(payload));
        const body = answer.json<{ success: boolean; error: { code: string; message: string } }>();
        assert.equal(body.success, false);
        assert.equal(body.error.code, 'validation_failed');
        assert.match(body.error.message, message, JSON.stringify(payload));
      }
      assert.equal((await assign(auth, 'not-a-uuid', { recipient: { chat_user_id: 'U1' } })).statusCode, 400);
    });

    it('answers 404 in the envelope for an unknown award, recipient or sender, and an award of another community', async () => {
      const { auth, award } = await setUp(ctx());
      const other = await setUp(ctx());
      const cases: [string, unknown, RegExp][] = [
        ['00000000-0000-4000-8000-000000000000', { recipient: { chat_user_id: 'U1' } }, /Award/],
        [other.award.id, { recipient: { chat_user_id: 'U1' } }, /Award/],
        [award.id, { recipient: { chat_user_id: 'U404' } }, /Recipient/],
        [award.id, { recipient: { email: 'nobody@example.com' } }, /Recipient/],
        [award.id, { recipient: { profile_id: profileId(99) } }, /Recipient/],
        [award.id, { recipient: { chat_user_id: 'U1' }, sender: { email: 'nobody@example.com' } }, /Sender/],
      ];
      for (const [awardId, payload, message] of cases) {
        const answer = await assign(auth, awardId, payload);
        assert.equal(answer.statusCode, 404, JSON.stringify(payload));
        const body = answer.json<{ success: boolean; error: { code: string; message: string } }>();
        assert.deepEqual([body.success, body.error.code], [false, 'not_found']);
        assert.match(body.error.message, message);
      }
    });

    it('assigning the same award again is not a second award: same answer, no second message or webhook', async () => {
      const { id, auth, award } = await setUp(ctx(), { bot: true });
      const subscribed = await ctx().request({
        method: 'POST',
        url: '/admin/v0/webhook_endpoints',
        headers: auth,
        payload: { url: receiver.url, events: ['award.assigned'] },
      });
      receiver.secrets = [subscribed.json<{ data: { secret: string } }>().data.secret];
      const first = await assign(auth, award.id, { recipient: { chat_user_id: 'U1' }, sender: { chat_user_id: 'U2' } });
      await eventually(() => fake.messages.length === 1, 'the first message');
      const again = await assign(auth, award.id, { recipient: { email: 'ada@example.com' } });
      assert.equal(again.statusCode, first.statusCode);
      assert.equal(again.body, first.body);
      assert.deepEqual(await holders(ctx(), id, award.id), [profileId(1)]);
      const worker = new DeliveryWorker({
        database: ctx().database,
        clock: ctx().clock,
        log: collectingLog(),
        allowPrivate: true,
        timeoutMs: durationMs(2000),
      });
      assert.equal(await worker.tick(), 1, 'one webhook only');
      const [webhook] = receiver.received;
      assert.deepEqual(webhook?.verifiedWith, receiver.secrets);
      assert.equal(webhook?.payload.type, 'award.assigned');
      assert.deepEqual(webhook?.payload.data.award, {
        id: award.id,
        name: award.name,
        description: 'Answered the most questions',
        emoji: ':star:',
      });
      assert.equal(webhook?.payload.data.recipient_profile_id, profileId(1));
      assert.equal(webhook?.payload.data.sender_profile_id, profileId(2));
      assert.equal(webhook?.payload.data.send_anonymously, false);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(fake.messages.length, 1, 'no second message');
    });

    it('tells the recipient by a Slack DM from the bot, naming the award and the sender unless anonymous', async () => {
      const { auth, award } = await setUp(ctx(), { bot: true });
      assert.equal(
        (await assign(auth, award.id, { recipient: { chat_user_id: 'U1' }, sender: { profile_id: profileId(2) } })).statusCode,
        200,
      );
      await eventually(() => fake.messages.length === 1, 'the DM');
      assert.equal(fake.messages[0]?.channel, 'U1');
      assert.equal(fake.messages[0]?.text, `:star: You received the award *${award.name}* from Bob!\n>Answered the most questions`);
      const post = fake.calls.find((c) => c.method === 'chat.postMessage');
      assert.equal(post?.token, fake.botToken);
      const anonymous = await assign(auth, award.id, {
        recipient: { email: 'bob@example.com' },
        sender: { chat_user_id: 'U1' },
        send_anonymously: true,
      });
      assert.equal(anonymous.statusCode, 200);
      await eventually(() => fake.messages.length === 2, 'the anonymous DM');
      assert.equal(fake.messages[1]?.channel, 'U2');
      assert.doesNotMatch(fake.messages[1]?.text ?? '', /Ada|from/);
      // Cy has no Slack user: nothing to send.
      assert.equal((await assign(auth, award.id, { recipient: { profile_id: profileId(3) } })).statusCode, 200);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(fake.messages.length, 2);
    });

    it('sends no DM without a bot connection (the award is still given)', async () => {
      const { id, auth, award } = await setUp(ctx());
      assert.equal((await assign(auth, award.id, { recipient: { chat_user_id: 'U1' } })).statusCode, 200);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(fake.calls.filter((c) => c.method === 'chat.postMessage').length, 0);
      assert.deepEqual(await holders(ctx(), id, award.id), [profileId(1)]);
    });

    it('retries the DM after a Slack 500 and after a 429 with Retry-After', async () => {
      const { auth, award } = await setUp(ctx(), { bot: true });
      fake.failHttp('chat.postMessage', 500, 1);
      assert.equal((await assign(auth, award.id, { recipient: { chat_user_id: 'U1' } })).statusCode, 200);
      await eventually(() => fake.messages.length === 1, 'the DM after a 500');
      assert.equal(fake.calls.filter((c) => c.method === 'chat.postMessage').length, 2);
      fake.rateLimitOnce('chat.postMessage', 0, 1);
      assert.equal((await assign(auth, award.id, { recipient: { chat_user_id: 'U2' } })).statusCode, 200);
      await eventually(() => fake.messages.length === 2, 'the DM after a 429');
      assert.equal(fake.calls.filter((c) => c.method === 'chat.postMessage').length, 4);
    });

    it('retries a failed DM on the queue with backoff once Slack answers an error, until it is sent', async () => {
      const { auth, award } = await setUp(ctx(), { bot: true });
      fake.setBehaviour('chat.postMessage', { error: 'internal_error' });
      assert.equal((await assign(auth, award.id, { recipient: { chat_user_id: 'U1' } })).statusCode, 200);
      const row = () =>
        ctx().database.db.selectFrom('award_notifications').selectAll().where('award_id', '=', award.id).executeTakeFirstOrThrow();
      const failedOnce = async () => (await row()).attempts === 1 && (await row()).last_error === 'internal_error';
      const until = Date.now() + 10_000;
      while (!(await failedOnce())) {
        assert.ok(Date.now() < until, 'the first attempt failed');
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      assert.equal((await row()).status, 'pending');
      fake.setBehaviour('chat.postMessage', 'ok');
      await new Promise((resolve) => setTimeout(resolve, 1200));
      assert.equal(fake.messages.length, 0, 'not before its backoff');
      ctx().clock.advance(notificationRetryDelay(1));
      await eventually(() => fake.messages.length === 1, 'the retried DM');
      const until2 = Date.now() + 5000;
      while ((await row()).status !== 'sent') {
        assert.ok(Date.now() < until2, 'marked sent');
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    });

    it('needs awards:write; takes an Idempotency-Key as every POST', async () => {
      const { id, auth, award } = await setUp(ctx());
      const scoped = await createApiKey(
        { database: ctx().database, clock: ctx().clock, communityId: id },
        { label: 'no awards', permissions: new Set(permissions.filter((p) => p !== 'awards:write')) },
      );
      const refused = await assign({ authorization: `Bearer ${scoped.key}` }, award.id, { recipient: { chat_user_id: 'U1' } });
      assert.equal(refused.statusCode, 403);
      assert.equal(refused.json<{ error: { code: string } }>().error.code, 'insufficient_scope');
      const key = { 'idempotency-key': '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b' };
      const first = await assign(auth, award.id, { recipient: { chat_user_id: 'U1' } }, key);
      const replay = await assign(auth, award.id, { recipient: { chat_user_id: 'U1' } }, key);
      assert.equal(replay.statusCode, 200);
      assert.equal(replay.body, first.body);
      const reused = await assign(auth, award.id, { recipient: { chat_user_id: 'U2' } }, key);
      assert.equal(reused.statusCode, 422);
    });
  },
  { env: { CHAT_API_URL: fake.url, CHAT_TIMEOUT_MS: '2000', WEBHOOK_ALLOW_PRIVATE: 'true' } },
);

describeEachEngine(
  'awards with WIRE_NAMES=slack',
  (ctx) => {
    it('takes slack_user_id, refuses chat_user_id as an unknown field, and names slack_user_id in messages', async () => {
      const community = await ctx().community();
      await runImport(
        { database: ctx().database, clock: ctx().clock, communityId: community.id },
        {
          profiles: [{ profile_id: profileId(1), email: 'ada@example.com', chat_user_id: 'U1' }],
        },
      );
      const award = await createAward(
        { database: ctx().database, clock: ctx().clock, communityId: community.id },
        { name: 'Slack spelled' },
      );
      const post = (payload: Record<string, unknown>) =>
        ctx().request({ method: 'POST', url: `/admin/v0/awards/${award.id}/assign`, headers: community.auth, payload });
      assert.equal((await post({ recipient: { slack_user_id: 'U1' } })).statusCode, 200);
      const chatSpelled = await post({ recipient: { chat_user_id: 'U1' } });
      assert.equal(chatSpelled.statusCode, 400);
      assert.match(chatSpelled.body, /chat_user_id/);
      const none = await post({ recipient: {} });
      assert.equal(none.statusCode, 400);
      assert.match(none.json<{ error: { message: string } }>().error.message, /exactly one of slack_user_id, email, profile_id/);
    });
  },
  { env: { WIRE_NAMES: 'slack' } },
);
