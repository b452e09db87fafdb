/**
 * The console's Slack page over HTTP (issue 39): GET /chat/status, POST /chat/sync_jobs and
 * GET /chat/sync_jobs/{id}, run by the worker the app starts, against the fake Slack Web API.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, it } from 'node:test';
import { buildApp } from '../../../src/app.js';
import { createApiKey } from '../../../src/modules/api-keys/api-keys.commands.js';
import { connectChat } from '../../../src/modules/chat-connections/chat-connections.commands.js';
import { addFeed } from '../../../src/modules/chat-sync/commands/bound-feeds.js';
import { connectSync } from '../../../src/modules/chat-sync/commands/connections.js';
import { permissions } from '../../../src/shared/permissions.js';
import { SecretBox } from '../../../src/shared/secret-box.js';
import { durationMs, epochMillis } from '../../../src/shared/time.js';
import { parseJsonOutput, runCli } from '../../support/cli.js';
import { startFakeChatServer } from '../../support/fake-chat-server.js';
import { describeEachEngine } from '../../support/harness.js';

interface Job {
  id: string;
  state: string;
  since: string | null;
  progress: {
    resumed: boolean;
    users: { read: number; changed: number };
    channels: { read: number; changed: number };
    messages: { read: number; posts_created: number; posts_updated: number; skipped: number };
  };
  error: string | null;
  attempts: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

interface Status {
  team_id: string | null;
  bot_user_id: string | null;
  admin_token: { stored: boolean; valid: boolean | null; checked_at: string | null; error: string | null };
  bot_token: { stored: boolean; valid: boolean | null; checked_at: string | null; error: string | null };
  channels: { channel_id: string; name: string | null; feed_ids: string[]; bot_is_member: boolean | null; error: string | null }[];
  last_sync: { at: string; result: string; error: string | null; job_id: string | null } | null;
  active_job: Job | null;
  event_queue: { length: number; oldest_received_at: string | null; lag_seconds: number | null };
}

const fake = await startFakeChatServer();
const users = 12;
const messages = 7;
for (let i = 0; i < users; i++)
  fake.addUser({ email: `user${i}@example.org`, id: `U${String(i).padStart(6, '0')}`, real_name: `User ${i}` });
fake.addChannel({ id: 'C0GENERAL', name: 'general', num_members: 12 });
fake.addChannel({ id: 'C0SECRET', name: 'secret', is_private: true, bot_is_member: false });
for (let i = 0; i < messages; i++)
  fake.addMessage('C0GENERAL', {
    ts: `${1_700_000_000 + i * 60}.000100`,
    user: `U${String(i % users).padStart(6, '0')}`,
    text: `hello ${i}`,
  });

const env = { CHAT_API_URL: fake.url, CHAT_TIMEOUT_MS: '2000', SECRETS_KEY: randomBytes(32).toString('base64') };

describeEachEngine(
  'chat status and sync jobs API',
  (ctx) => {
    let community: { id: string; auth: { authorization: string } };
    let feedId: string;
    let connectedAt: number;

    before(async () => {
      const { database, clock, config } = ctx();
      const box = new SecretBox(config.secrets);
      community = await ctx().community('free');
      connectedAt = clock.now();
      await connectSync(
        { database, clock, box, communityId: community.id },
        {
          botToken: fake.botToken,
          signingSecret: 'sig-secret',
          apiAppId: undefined,
          apiUrl: fake.url,
          timeoutMs: durationMs(2000),
        },
      );
      const options = { apiUrl: fake.url, timeoutMs: durationMs(2000), label: undefined };
      feedId = (await addFeed({ database, clock, box, communityId: community.id }, { ...options, channelId: 'C0GENERAL', syncAll: true }))
        .id;
      await addFeed({ database, clock, box, communityId: community.id }, { ...options, channelId: 'C0SECRET', syncAll: false }).catch(
        () => undefined,
      );
    });
    after(() => fake.setBehaviour('users.list', 'ok'));

    const get = async <T>(url: string, auth = community.auth) => {
      const answer = await ctx().request({ method: 'GET', url, headers: auth });
      assert.equal(answer.statusCode, 200, answer.body);
      return answer.json<{ data: T }>().data;
    };
    const start = (payload: Record<string, unknown> = {}, auth = community.auth) =>
      ctx().request({ method: 'POST', url: '/admin/v0/chat/sync_jobs', headers: auth, payload });
    /** Polls a job until it has ended. */
    const settle = async (id: string): Promise<Job> => {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const job = await get<Job>(`/admin/v0/chat/sync_jobs/${id}`);
        if (job.state === 'succeeded' || job.state === 'failed') return job;
        if (Date.now() > deadline) assert.fail(`job ${id} still ${job.state}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };

    it('answers the state of a community with no connection, and refuses a backfill there', async () => {
      const bare = await ctx().community();
      const status = await get<Status>('/admin/v0/chat/status', bare.auth);
      assert.deepEqual(status.admin_token, { stored: false, valid: null, checked_at: null, error: null });
      assert.deepEqual(status.bot_token, { stored: false, valid: null, checked_at: null, error: null });
      assert.deepEqual([status.team_id, status.channels, status.last_sync, status.active_job], [null, [], null, null]);
      assert.deepEqual(status.event_queue, { length: 0, oldest_received_at: null, lag_seconds: null });
      const refused = await start({}, bare.auth);
      assert.equal(refused.statusCode, 400);
      assert.equal(refused.json<{ error: { code: string } }>().error.code, 'chat_bot_not_connected');
    });

    it('shows the admin token of invitations valid as connected, then as a check found it', async () => {
      const { database, clock, config } = ctx();
      const invites = await ctx().community();
      clock.advance(1000);
      await connectChat(
        { database, clock, secrets: new SecretBox(config.secrets) },
        { communityId: invites.id, token: fake.validToken, apiUrl: fake.url, timeoutMs: durationMs(2000) },
      );
      const connected = await get<Status>('/admin/v0/chat/status', invites.auth);
      assert.deepEqual(connected.admin_token, { stored: true, valid: true, checked_at: new Date(clock.now()).toISOString(), error: null });
      assert.equal(connected.team_id, fake.teamId);
      assert.equal(connected.bot_token.stored, false);
      fake.setBehaviour('auth.test', { error: 'token_revoked' });
      try {
        clock.advance(1000);
        const checked = await get<Status>('/admin/v0/chat/status?check=true', invites.auth);
        assert.deepEqual(checked.admin_token, {
          stored: true,
          valid: false,
          checked_at: new Date(clock.now()).toISOString(),
          error: 'token_revoked',
        });
        // Stored: the plain form answers the same without asking Slack.
        const calls = fake.calls.length;
        assert.deepEqual((await get<Status>('/admin/v0/chat/status', invites.auth)).admin_token, checked.admin_token);
        assert.equal(fake.calls.length, calls);
      } finally {
        fake.setBehaviour('auth.test', 'ok');
      }
    });

    it('runs a backfill as a job: 202 queued, one at a time (409 naming it), progress as the CLI counts, the data over the API', async () => {
      const before = await get<Status>('/admin/v0/chat/status');
      assert.equal(before.team_id, fake.teamId);
      assert.deepEqual(before.bot_token, { stored: true, valid: true, checked_at: new Date(connectedAt).toISOString(), error: null });
      assert.equal(before.admin_token.stored, false);
      assert.equal(before.last_sync, null);

      const started = await start();
      assert.equal(started.statusCode, 202, started.body);
      const job = started.json<{ data: Job }>().data;
      assert.equal(job.state, 'queued');
      assert.deepEqual(job.progress.users, { read: 0, changed: 0 });
      const second = await start({ since: '2023-01-01' });
      assert.equal(second.statusCode, 409, second.body);
      const refusal = second.json<{ error: { code: string; message: string } }>().error;
      assert.equal(refusal.code, 'chat_sync_job_running');
      assert.match(refusal.message, new RegExp(job.id));

      const done = await settle(job.id);
      assert.equal(done.state, 'succeeded', done.error ?? '');
      assert.equal(done.error, null);
      assert.deepEqual(done.progress.users, { read: users, changed: users });
      assert.equal(done.progress.channels.read, 2);
      assert.deepEqual(done.progress.messages, { read: messages, posts_created: messages, posts_updated: 0, skipped: 0 });
      assert.ok(done.started_at !== null && done.finished_at !== null && done.finished_at >= done.started_at);
      assert.equal(done.attempts, 1);

      const posts = await get<{ total_records: number; records: { body_plaintext?: string }[] }>(
        `/admin/v0/feeds/${feedId}/posts?per_page=50`,
      );
      assert.equal(posts.total_records, messages);
      const status = await get<Status>('/admin/v0/chat/status');
      assert.deepEqual(
        (({ result, error, job_id }) => ({ result, error, job_id }))(status.last_sync ?? { result: '', error: '', job_id: '' }),
        { result: 'succeeded', error: null, job_id: job.id },
      );
      assert.equal(status.active_job, null);
      // The job checked the bot's presence in the bound channels as it started.
      assert.deepEqual(
        status.channels.map((c) => [c.channel_id, c.name, c.bot_is_member]),
        [
          ['C0GENERAL', 'general', true],
          ['C0SECRET', 'secret', false],
        ],
      );
      assert.deepEqual(status.channels[0]?.feed_ids, [feedId]);

      // The job's run records its start and end once each, as the sync (issue 38); the refused start none.
      const log = await get<{
        records: {
          action: string;
          actor: { type: string; id: string | null };
          target: { type: string };
          metadata: { users?: unknown } | null;
        }[];
      }>('/admin/v0/activities?action=chat_sync.*&per_page=100');
      assert.deepEqual(
        log.records.map((r) => [r.action, r.actor.type, r.actor.id, r.target.type]),
        [
          ['chat_sync.completed', 'chat_sync', fake.teamId, 'community'],
          ['chat_sync.started', 'chat_sync', fake.teamId, 'community'],
        ],
      );
      assert.deepEqual(log.records[0]?.metadata?.users, { read: users, changed: users });

      // Again, from a date: nothing changes, and another job may start now that the first ended.
      const again = await start({ since: '2023-11-14T22:14:00Z' });
      assert.equal(again.statusCode, 202, again.body);
      const next = await settle(again.json<{ data: Job }>().data.id);
      assert.equal(next.state, 'succeeded');
      assert.equal(next.since, '2023-11-14T22:14:00.000Z');
      assert.deepEqual([next.progress.users.changed, next.progress.messages.posts_created], [0, 0]);
    });

    it("fails a job with Slack's answer, and says so in the status", async () => {
      fake.setBehaviour('users.list', { error: 'invalid_auth' });
      try {
        const started = await start();
        assert.equal(started.statusCode, 202, started.body);
        const done = await settle(started.json<{ data: Job }>().data.id);
        assert.equal(done.state, 'failed');
        assert.equal(done.error, 'Slack answered users.list with invalid_auth');
        const status = await get<Status>('/admin/v0/chat/status');
        assert.equal(status.last_sync?.result, 'failed');
        assert.equal(status.last_sync?.error, 'Slack answered users.list with invalid_auth');
        assert.deepEqual([status.bot_token.valid, status.bot_token.error], [false, 'invalid_auth']);
      } finally {
        fake.setBehaviour('users.list', 'ok');
      }
      // check=true asks Slack now: the token answers auth.test again.
      const checked = await get<Status>('/admin/v0/chat/status?check=true');
      assert.deepEqual([checked.bot_token.valid, checked.bot_token.error], [true, null]);
    });

    it('takes over a job whose instance died, once its lease has run out', async () => {
      const { database, clock } = ctx();
      const now = clock.now();
      const id = '0b0c3c52-3f0e-4c41-9d4e-7a0f1f1a2b3c';
      // What a worker that claimed the job and died leaves: running, leased for a minute.
      await database.db
        .insertInto('chat_sync_jobs')
        .values({
          id,
          community_id: community.id,
          state: 'running',
          since: null,
          progress: JSON.stringify({
            resumed: false,
            users: { read: 0, changed: 0 },
            channels: { read: 0, changed: 0 },
            messages: { read: 0, posts_created: 0, posts_updated: 0, skipped: 0 },
            rate_limit_waits: 0,
            seconds: 0,
          }),
          error: null,
          attempts: 1,
          lease_until: epochMillis(now + 60_000),
          created_at: epochMillis(now),
          started_at: epochMillis(now),
          finished_at: null,
          updated_at: epochMillis(now),
        })
        .execute();
      const refused = await start();
      assert.equal(refused.statusCode, 409);
      // The worker polls every second: still the dead instance's while the lease holds.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const held = await get<Job>(`/admin/v0/chat/sync_jobs/${id}`);
      assert.deepEqual([held.state, held.attempts], ['running', 1]);
      clock.advance(61_000);
      const done = await settle(id);
      assert.deepEqual([done.state, done.attempts, done.progress.users.read], ['succeeded', 2, users]);
    });

    it('stops a worker whose lease was taken over: it writes nothing more of the job', async () => {
      const { database, clock } = ctx();
      fake.setBehaviour('conversations.history', { delayMs: 1200 });
      try {
        const started = await start();
        assert.equal(started.statusCode, 202, started.body);
        const { id } = started.json<{ data: Job }>().data;
        const deadline = Date.now() + 10_000;
        while ((await get<Job>(`/admin/v0/chat/sync_jobs/${id}`)).progress.users.read < users) {
          if (Date.now() > deadline) assert.fail('the job did not get past the users');
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        // Another instance takes the job over while this one waits for Slack (its lease is replaced).
        const stolen = epochMillis(clock.now() + 3_600_000);
        await database.db.updateTable('chat_sync_jobs').set({ lease_until: stolen }).where('id', '=', id).execute();
        await new Promise((resolve) => setTimeout(resolve, 2500));
        const left = await get<Job>(`/admin/v0/chat/sync_jobs/${id}`);
        assert.deepEqual([left.state, left.finished_at, left.progress.messages.read], ['running', null, 0]);
        const row = await database.db.selectFrom('chat_sync_jobs').select('lease_until').where('id', '=', id).executeTakeFirstOrThrow();
        assert.equal(Number(row.lease_until), stolen);
        fake.setBehaviour('conversations.history', 'ok');
        // The other instance "dies" too: after its lease, a claim takes the job over and ends it.
        clock.advance(3_600_001);
        const done = await settle(id);
        assert.deepEqual([done.state, done.attempts], ['succeeded', 2]);
      } finally {
        fake.setBehaviour('conversations.history', 'ok');
      }
    });

    it('releases a running job when its server stops, and another instance goes on with it at once', async () => {
      const { database, clock, config } = ctx();
      // A second instance on the same database: it is woken by its own start, so it claims the job.
      const second = await buildApp({ config, database, clock, logger: false });
      await second.ready();
      fake.setBehaviour('conversations.history', { delayMs: 800 });
      try {
        const started = await second.inject({ method: 'POST', url: '/admin/v0/chat/sync_jobs', headers: community.auth, payload: {} });
        assert.equal(started.statusCode, 202, started.body);
        const { id } = (JSON.parse(started.body) as { data: Job }).data;
        const deadline = Date.now() + 10_000;
        while ((await get<Job>(`/admin/v0/chat/sync_jobs/${id}`)).progress.users.read < users) {
          if (Date.now() > deadline) assert.fail('the job did not get past the users');
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        await second.close();
        fake.setBehaviour('conversations.history', 'ok');
        // The test clock stands still: had the stopped instance kept its lease, nobody could claim the job.
        const done = await settle(id);
        assert.deepEqual([done.state, done.attempts, done.progress.resumed], ['succeeded', 2, true]);
      } finally {
        fake.setBehaviour('conversations.history', 'ok');
        await second.close();
      }
    });

    it("records the CLI's chat sync as the last sync, with the counts a job reports", async () => {
      const cli = await runCli(['chat', 'sync', '--community', community.id, '--json'], { ...ctx().testDb.env, ...env });
      assert.equal(cli.code, 0, cli.stderr);
      const summary = parseJsonOutput<Record<string, unknown>>(cli);
      const status = await get<Status>('/admin/v0/chat/status');
      assert.deepEqual((({ result, job_id }) => ({ result, job_id }))(status.last_sync ?? { result: '', job_id: '' }), {
        result: 'succeeded',
        job_id: null,
      });
      const job = await settle((await start()).json<{ data: Job }>().data.id);
      const { community_id, team_id, seconds: _cliSeconds, ...counts } = summary;
      const { seconds: _jobSeconds, ...jobCounts } = job.progress as unknown as Record<string, unknown>;
      assert.deepEqual([community_id, team_id], [community.id, fake.teamId]);
      assert.deepEqual(jobCounts, counts);
    });

    it('counts the waiting Events API deliveries and the lag of the oldest', async () => {
      const { database, clock } = ctx();
      const now = clock.now();
      // Held by another instance (leased for an hour), so the app's event worker leaves them be.
      for (const [eventId, age] of [
        ['Ev1', 90_000],
        ['Ev2', 30_000],
      ] as const)
        await database.db
          .insertInto('chat_event_queue')
          .values({
            community_id: community.id,
            event_id: eventId,
            event_type: 'message',
            body: '{}',
            received_at: epochMillis(now - age),
            attempts: 1,
            lease_until: epochMillis(now + 3_600_000),
            applied_at: null,
            last_error: null,
          })
          .execute();
      const status = await get<Status>('/admin/v0/chat/status');
      assert.deepEqual(status.event_queue, { length: 2, oldest_received_at: new Date(now - 90_000).toISOString(), lag_seconds: 90 });
    });

    it('needs chat:read to read and chat:write to start; a job of another community is not found', async () => {
      const { database, clock } = ctx();
      const key = async (held: string[]) =>
        ({
          authorization: `Bearer ${(await createApiKey({ database, clock, communityId: community.id }, { label: 'scoped', permissions: new Set(permissions.filter((p) => held.includes(p))) })).key}`,
        }) as { authorization: string };
      const readOnly = await key(['chat:read']);
      const none = await key(['feeds:read']);
      const status = await ctx().request({ method: 'GET', url: '/admin/v0/chat/status', headers: none });
      assert.equal(status.statusCode, 403);
      assert.equal(status.json<{ error: { code: string } }>().error.code, 'insufficient_scope');
      assert.equal((await ctx().request({ method: 'GET', url: '/admin/v0/chat/status', headers: readOnly })).statusCode, 200);
      const refused = await start({}, readOnly);
      assert.equal(refused.statusCode, 403);
      const other = await ctx().community();
      const anyJob = (await get<Status>('/admin/v0/chat/status')).last_sync?.job_id as string;
      const hidden = await ctx().request({ method: 'GET', url: `/admin/v0/chat/sync_jobs/${anyJob}`, headers: other.auth });
      assert.equal(hidden.statusCode, 404);
      const bad = await start({ since: 'last tuesday' });
      assert.equal(bad.statusCode, 400);
      assert.equal((await start({ since: '2024-01-01', extra: 1 })).statusCode, 400);
      assert.equal(
        (await ctx().request({ method: 'GET', url: '/admin/v0/chat/sync_jobs/not-a-uuid', headers: community.auth })).statusCode,
        400,
      );
    });
  },
  { env },
);

after(() => fake.close());
