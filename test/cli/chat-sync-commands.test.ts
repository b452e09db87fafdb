/**
 * `chat connect --bot-token`, `feed add|list` and `chat sync` through the real bin against a temp
 * database of each engine and the fake Slack Web API; answers checked through the HTTP API.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { createApiKey } from '../../src/modules/api-keys/api-keys.commands.js';
import { createCommunity } from '../../src/modules/communities/communities.commands.js';
import { systemClock } from '../../src/shared/clock.js';
import { binPath, projectRoot, runCli } from '../support/cli.js';
import { type FakeChatServer, startFakeChatServer } from '../support/fake-chat-server.js';
import { createTestDatabase, engines, type TestDatabase, testConfig } from '../support/harness.js';

const secretsKey = randomBytes(32).toString('base64');
const signingSecret = `sig-${randomBytes(16).toString('hex')}`;
const userCount = 450;
const messageCount = 430;

/** A bot's announcement as Slack sends it: Block Kit layout blocks, not rich_text. */
const announcementBlocks = [
  { type: 'header', block_id: 'h7', text: { type: 'plain_text', text: 'Launch week', emoji: true } },
  { type: 'section', block_id: 's7', text: { type: 'mrkdwn', text: '*message 7* for <@U000001> :rocket:' } },
  { type: 'context', block_id: 'c7', elements: [{ type: 'mrkdwn', text: 'Posted in <#C0GENERAL>' }] },
];

/** The fake workspace: 450 users (3 pages), #general with 430 messages (3 pages), a thread of 250 replies (2 pages). */
function populate(fake: FakeChatServer): void {
  for (let i = 0; i < userCount; i++) {
    fake.addUser({
      email: i === 0 ? 'Ada@Example.com' : `user${i}@example.com`,
      id: `U${String(i).padStart(6, '0')}`,
      real_name: `User ${i}`,
      first_name: 'User',
      last_name: String(i),
      is_admin: i === 1,
      deleted: i === 2,
      images: { image_24: `https://img.test/${i}_24.png`, image_1024: `https://img.test/${i}_1024.png` },
    });
  }
  fake.addUser({ email: '', id: 'U0BOTUSER', real_name: 'Helper bot', is_bot: true });
  fake.addChannel({ id: 'C0GENERAL', name: 'general', num_members: 42, purpose: 'Talk to <@U000001> here', topic: 'Welcome' });
  for (let i = 0; i < messageCount; i++) {
    const ts = `${1_700_000_000 + i * 60}.000${String(i % 1000).padStart(3, '0')}`;
    fake.addMessage('C0GENERAL', {
      ts,
      user: `U${String(i % 10).padStart(6, '0')}`,
      text: `message ${i}`,
      blocks:
        i === 7
          ? announcementBlocks
          : [
              {
                type: 'rich_text',
                block_id: `b${i}`,
                elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: `message ${i}` }] }],
              },
            ],
      ...(i === 5
        ? { reactions: [{ name: 'tada', count: 3, users: ['U000001', 'U000002', 'U000003'] }], files: [{ id: 'F1' }, { id: 'F2' }] }
        : {}),
    });
  }
  // A channel notice is not a post.
  fake.addMessage('C0GENERAL', { ts: '1700100000.000001', subtype: 'channel_join', user: 'U000003', text: 'joined' });
  for (let r = 0; r < 250; r++)
    fake.addReply('C0GENERAL', '1700000000.000000', {
      ts: `1700200000.${String(r).padStart(3, '0')}000`,
      user: 'U000004',
      text: `reply ${r}`,
    });
}

for (const { engine, skip } of engines) {
  describe(`community-admin chat sync [${engine}]`, { skip }, () => {
    let fake: FakeChatServer;
    let testDb: TestDatabase;
    let env: Record<string, string>;
    let app: FastifyInstance;
    let communityId: string;
    let auth: { authorization: string };
    let feedId: string;

    before(async () => {
      fake = await startFakeChatServer();
      populate(fake);
      testDb = await createTestDatabase(engine);
      env = { ...testDb.env, CHAT_API_URL: fake.url, SECRETS_KEY: secretsKey, CHAT_TIMEOUT_MS: '2000' };
      app = await buildApp({ config: testConfig(), database: testDb.database, logger: false });
      communityId = (await createCommunity({ database: testDb.database, clock: systemClock }, { name: 'Synced', plan: 'enterprise' })).id;
      auth = {
        authorization: `Bearer ${(await createApiKey({ database: testDb.database, clock: systemClock, communityId }, { label: 'test' })).key}`,
      };
    });
    after(async () => {
      await app?.close();
      await fake?.close();
      await testDb?.drop();
    });

    const get = async (url: string) => {
      const response = await app.inject({ method: 'GET', url, headers: auth });
      assert.equal(response.statusCode, 200, response.body);
      return (JSON.parse(response.body) as { data: Record<string, unknown> & { records: Record<string, unknown>[] } }).data;
    };
    /** The community's activity records of `action` (or a family), newest first. */
    const activities = async (action: string) =>
      (await get(`/admin/v0/activities?action=${encodeURIComponent(action)}&per_page=100`)).records as {
        action: string;
        actor: { type: string; id: string | null; label: string | null };
        target: { type: string; id: string | null; name: string | null };
        context: unknown;
        metadata: Record<string, unknown> | null;
      }[];
    const postsVersion = async () =>
      Number(
        (await testDb.database.db.selectFrom('communities').select('posts_version').where('id', '=', communityId).executeTakeFirstOrThrow())
          .posts_version,
      );

    it('connects with a bot token and signing secret: auth.test, team id stored, secrets sealed and never printed', async () => {
      const bad = await runCli(
        ['chat', 'connect', '--community', communityId, '--bot-token', 'xoxb-wrong', '--signing-secret', signingSecret],
        env,
      );
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /invalid_auth/);
      assert.equal(`${bad.stdout}${bad.stderr}`.includes(signingSecret), false);

      const run = await runCli(
        ['chat', 'connect', '--community', communityId, '--bot-token', fake.botToken, '--signing-secret', signingSecret, '--json'],
        env,
      );
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual(JSON.parse(run.stdout), { community_id: communityId, connected: true, team_id: fake.teamId, sync: true });
      for (const secret of [fake.botToken, signingSecret]) assert.equal(`${run.stdout}${run.stderr}`.includes(secret), false);
      const row = await testDb.database.db
        .selectFrom('chat_sync_connections')
        .selectAll()
        .where('community_id', '=', communityId)
        .executeTakeFirstOrThrow();
      assert.equal(row.team_id, fake.teamId);
      for (const column of [row.bot_token, row.signing_secret]) {
        assert.match(column, /^sealed:v1:[0-9a-f]{8}:/);
        assert.equal(column.includes(fake.botToken) || column.includes(signingSecret), false);
      }
      // Without the key the sealed secrets cannot be opened: a clear error, not a leak.
      const noKey = await runCli(['chat', 'sync', '--community', communityId], { ...env, SECRETS_KEY: '' });
      assert.equal(noKey.code, 1);
      assert.match(noKey.stderr, /SECRETS_KEY/);
      assert.deepEqual(await activities('chat_sync.*'), [], 'a refused sync records nothing');
    });

    it('feed add binds a channel (label from its name), feed list shows it', async () => {
      // A label the feed rules refuse: the feeds section's line, and nothing bound.
      const tooLong = await runCli(['feed', 'add', '--community', communityId, '--channel', 'C0GENERAL', '--label', 'x'.repeat(201)], env);
      assert.equal(tooLong.code, 1);
      assert.equal(tooLong.stderr, 'feeds[0].label: must NOT have more than 200 characters\n');
      const added = await runCli(['feed', 'add', '--community', communityId, '--channel', 'C0GENERAL', '--sync-all', '--json'], env);
      assert.equal(added.code, 0, added.stderr);
      const feed = JSON.parse(added.stdout) as {
        id: string;
        label: string;
        chat_channel_name: string;
        sync_all_incoming_messages: boolean;
      };
      assert.equal(feed.label, 'general');
      assert.equal(feed.sync_all_incoming_messages, true);
      feedId = feed.id;
      const again = await runCli(['feed', 'add', '--community', communityId, '--channel', 'C0GENERAL'], env);
      assert.equal(again.code, 1);
      assert.match(again.stderr, /already bound/);
      const badChannel = await runCli(['feed', 'add', '--community', communityId, '--channel', 'general'], env);
      assert.equal(badChannel.code, 1);
      const list = await runCli(['feed', 'list', '--community', communityId, '--json'], env);
      assert.equal(list.code, 0, list.stderr);
      assert.deepEqual(
        (JSON.parse(list.stdout) as { id: string }[]).map((f) => f.id),
        [feedId],
      );
      const one = await get(`/admin/v0/feeds/${feedId}`);
      assert.equal(one.chat_channel_num_members, 42);
      // One feed.created, the operator's; the three refused adds none (issue 38).
      const created = await activities('feed.*');
      assert.equal(created.length, 1, JSON.stringify(created));
      assert.equal(created[0]?.action, 'feed.created');
      assert.equal(created[0]?.actor.type, 'cli');
      assert.equal(created[0]?.context, null);
      assert.deepEqual(created[0]?.target, { type: 'feed', id: feedId, name: 'general' });
      assert.deepEqual(created[0]?.metadata, { chat_channel_id: 'C0GENERAL' });
    });

    it('is killed mid-history and resumes from its checkpoint', async () => {
      fake.setBehaviour('conversations.history', { delayMs: 400 });
      const child = spawn(process.execPath, [binPath, 'chat', 'sync', '--community', communityId], {
        cwd: projectRoot,
        env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env },
        stdio: 'ignore',
      });
      // Killed once a history page is committed (its checkpoint holds the next cursor) while the next is in flight.
      const committedPage = async () =>
        (await testDb.database.db.selectFrom('chat_sync_checkpoints').selectAll().where('community_id', '=', communityId).execute()).some(
          (c) => c.scope === 'history:C0GENERAL' && c.cursor !== '',
        );
      const deadline = Date.now() + 60_000;
      while (!(await committedPage()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      child.kill('SIGKILL');
      await new Promise((r) => child.once('close', r));
      fake.setBehaviour('conversations.history', 'ok');
      const checkpoints = await testDb.database.db
        .selectFrom('chat_sync_checkpoints')
        .selectAll()
        .where('community_id', '=', communityId)
        .execute();
      assert.ok(
        checkpoints.some((c) => c.scope === 'history:C0GENERAL' && c.cursor !== ''),
        JSON.stringify(checkpoints),
      );
      const partial = await get(`/admin/v0/feeds/${feedId}/posts?per_page=1`);
      assert.ok((partial.total_records as number) > 0 && (partial.total_records as number) < messageCount);
      fake.calls.length = 0;

      // A 429 in the middle of the resumed run: waited out, not fatal.
      fake.rateLimitOnce('conversations.history', 1, 1);
      const run = await runCli(['chat', 'sync', '--community', communityId, '--json'], env);
      assert.equal(run.code, 0, run.stderr);
      const summary = JSON.parse(run.stdout) as { resumed: boolean; rate_limit_waits: number; messages: { read: number } };
      assert.equal(summary.resumed, true);
      assert.equal(summary.rate_limit_waits, 1);
      assert.match(run.stderr, /rate limited on conversations\.history/);
      assert.match(run.stderr, /#general \(1\/1 channels\): \d+ messages, \d+ posts created \(\d+\/s\)/);
      const firstHistory = fake.calls.find((c) => c.method === 'conversations.history');
      assert.ok(typeof firstHistory?.params.cursor === 'string' && firstHistory.params.cursor !== '', 'resumed from a cursor');
      assert.ok(summary.messages.read < messageCount, 'pages written before the kill were not read again');
      assert.equal(
        await testDb.database.db
          .selectFrom('chat_sync_checkpoints')
          .select('scope')
          .where('community_id', '=', communityId)
          .execute()
          .then((r) => r.length),
        0,
      );
    });

    it('has written profiles, the feed channel and every post with counts, permalink and author', async () => {
      const page = await get(`/admin/v0/feeds/${feedId}/posts?per_page=50&sort=oldest`);
      assert.equal(page.total_records, messageCount);
      const [first, , , , , sixth] = page.records as Record<string, unknown>[];
      assert.equal(first?.comments_count, 250);
      assert.equal(first?.latest_activity_at, '2023-11-17 05:46:40.249+00');
      assert.equal(first?.source, 'chat');
      assert.equal((first?.chat_message as { permalink: string }).permalink, `${fake.teamUrl}archives/C0GENERAL/p1700000000000000`);
      assert.equal(first?.body_plaintext, 'message 0');
      assert.equal((first?.chat_message as { message_ts: unknown }).message_ts, '1700000000.000000');
      // Layout blocks (header, section with mrkdwn, context) are kept as Slack sent them and rendered.
      const eighth = page.records[7] as { body_plaintext: string; chat_message: { blocks: unknown } } & Record<string, unknown>;
      assert.deepEqual(eighth.chat_message.blocks, announcementBlocks);
      assert.match(eighth.body_plaintext, /Launch week/);
      assert.match(eighth.body_plaintext, /message 7/);
      assert.deepEqual(
        (eighth.references as { mentioned_chat_users: { chat_user_id: string }[] }).mentioned_chat_users.map((u) => u.chat_user_id),
        ['U000001'],
      );
      assert.equal(sixth?.reactions_count, 3);
      assert.equal(sixth?.file_attachments_count, 2);
      const author = first?.author as Record<string, unknown>;
      assert.equal(author.chat_user_id, 'U000000');
      assert.equal(author.email, 'Ada@Example.com');
      assert.equal(author.preferred_image_24, 'https://img.test/0_24.png');
      assert.equal(author.preferred_image_1024, 'https://img.test/0_1024.png');
      assert.equal(author.preferred_image_original, 'https://img.test/0_1024.png');
      const admin = (page.records[1] as { author: Record<string, unknown> }).author;
      assert.equal(admin.chat_is_admin, true);
      const profiles = await testDb.database.db
        .selectFrom('profiles')
        .select(['chat_user_id', 'chat_deleted'])
        .where('community_id', '=', communityId)
        .execute();
      assert.equal(profiles.length, userCount + 1);
      assert.deepEqual(
        profiles.filter((p) => p.chat_deleted === 1).map((p) => p.chat_user_id),
        ['U000002'],
      );
      // A bot has no e-mail: its profile is kept without one.
      const bot = await testDb.database.db
        .selectFrom('profiles')
        .select('doc')
        .where('community_id', '=', communityId)
        .where('chat_user_id', '=', 'U0BOTUSER')
        .executeTakeFirstOrThrow();
      assert.equal((JSON.parse(bot.doc) as { email: unknown; chat_is_bot: boolean }).email, null);
      assert.equal((JSON.parse(bot.doc) as { chat_is_bot: boolean }).chat_is_bot, true);
      const feed = await get(`/admin/v0/feeds/${feedId}`);
      assert.equal(feed.chat_channel_name, 'general');
      // Purpose and topic (stored, not answered by the single feed) as Slack's blocks for them: a section with a mrkdwn text.
      const stored = await testDb.database.db
        .selectFrom('feeds')
        .select('doc')
        .where('community_id', '=', communityId)
        .where('id', '=', feedId)
        .executeTakeFirstOrThrow();
      const doc = JSON.parse(stored.doc) as Record<string, unknown>;
      assert.deepEqual(doc.chat_channel_purpose_chat_blocks, [
        { type: 'section', text: { type: 'mrkdwn', text: 'Talk to <@U000001> here' } },
      ]);
      assert.deepEqual(doc.chat_channel_topic_chat_blocks, [{ type: 'section', text: { type: 'mrkdwn', text: 'Welcome' } }]);
      const home = await get('/admin/v0/feeds/home/posts?per_page=1');
      assert.equal(home.total_records, messageCount);
    });

    it('a second run changes nothing', async () => {
      const version = await postsVersion();
      const before = await activities('chat_sync.*');
      const run = await runCli(['chat', 'sync', '--community', communityId, '--json'], env);
      assert.equal(run.code, 0, run.stderr);
      // The run is recorded once at its start and once at its end, as the sync (issue 38), whatever it wrote.
      const after = await activities('chat_sync.*');
      assert.deepEqual(
        after.slice(0, after.length - before.length).map((r) => [r.action, r.actor.type, r.actor.id, r.target.type]),
        [
          ['chat_sync.completed', 'chat_sync', fake.teamId, 'community'],
          ['chat_sync.started', 'chat_sync', fake.teamId, 'community'],
        ],
      );
      const summary = JSON.parse(run.stdout) as Record<string, Record<string, number>>;
      assert.equal(summary.resumed as unknown, false);
      assert.deepEqual(summary.users, { read: userCount + 1, changed: 0 });
      assert.equal(summary.channels?.changed, 0);
      assert.equal(summary.messages?.posts_created, 0);
      assert.equal(summary.messages?.posts_updated, 0);
      assert.equal(await postsVersion(), version);
    });

    it('a changed message, reaction or user is picked up by the next run', async () => {
      fake.updateMessage('C0GENERAL', '1700000060.000001', { reactions: [{ name: 'eyes', count: 2, users: [] }] });
      const run = await runCli(['chat', 'sync', '--community', communityId, '--json'], env);
      assert.equal(run.code, 0, run.stderr);
      const summary = JSON.parse(run.stdout) as { messages: { posts_updated: number } };
      assert.equal(summary.messages.posts_updated, 1);
      const page = await get(`/admin/v0/feeds/${feedId}/posts?per_page=2&sort=oldest`);
      assert.equal(page.records[1]?.reactions_count, 2);
    });
  });
}
