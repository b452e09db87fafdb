/**
 * What the tests of POST /chat/events share: a community connected to the fake Slack with a feed bound
 * to a channel, Slack's signed deliveries, and waiting until the server's worker has applied them.
 */
import { runBackfill } from '../../src/modules/chat-sync/commands/backfill.js';
import { addFeed } from '../../src/modules/chat-sync/commands/bound-feeds.js';
import { connectSync } from '../../src/modules/chat-sync/commands/connections.js';
import { slackSignature } from '../../src/modules/chat-sync/rules/signature.js';
import { SecretBox } from '../../src/shared/secret-box.js';
import { durationMs } from '../../src/shared/time.js';
import type { FakeChatServer } from './fake-chat-server.js';
import type { TestApp } from './harness.js';

export const chatSigningSecret = 'test-signing-secret-0123456789';
const box = new SecretBox({ key: null, previousKeys: [] });

/** Connects the community to the fake Slack for sync, binds a feed (every message synced) to the channel, backfills; answers the feed's id. */
export async function connectedFeed(t: TestApp, fake: FakeChatServer, communityId: string, channelId: string): Promise<string> {
  const deps = { database: t.database, clock: t.clock, box };
  await connectSync(
    { database: t.database, clock: t.clock, box, communityId },
    {
      botToken: fake.botToken,
      signingSecret: chatSigningSecret,
      apiAppId: 'A0APP',
      apiUrl: fake.url,
      timeoutMs: durationMs(2000),
    },
  );
  const feed = await addFeed(
    { ...deps, communityId },
    {
      channelId,
      label: undefined,
      syncAll: true,
      apiUrl: fake.url,
      timeoutMs: durationMs(2000),
    },
  );
  await runBackfill({ ...deps, apiUrl: fake.url, timeoutMs: durationMs(2000), communityId }, {});
  return feed.id;
}

/** An Events API envelope (event_callback) of `event`, as Slack sends it for the team. */
export const eventEnvelope = (t: TestApp, teamId: string, event: Record<string, unknown>, eventId: string) => ({
  token: 'deprecated-verification-token',
  team_id: teamId,
  api_app_id: 'A0APP',
  event,
  type: 'event_callback',
  event_id: eventId,
  event_time: Math.floor(t.clock.now() / 1000),
});

/** A user_change event: U0ADA (Ada) renamed, her display name now "Countess". */
export const adaRenamedEvent = (teamId: string) => ({
  type: 'user_change',
  user: {
    id: 'U0ADA',
    team_id: teamId,
    name: 'ada',
    real_name: 'Ada King',
    profile: { real_name: 'Ada King', display_name: 'Countess', email: 'ada@example.com' },
  },
});

/** POST /chat/events with `body` signed as Slack signs it (another secret or timestamp to test refusals; a retry number). */
export function deliverSigned(
  t: TestApp,
  body: unknown,
  options: { secret?: string; timestamp?: number; retry?: number; app?: TestApp['app'] } = {},
) {
  const payload = JSON.stringify(body);
  const timestamp = String(options.timestamp ?? Math.floor(t.clock.now() / 1000));
  return (options.app ?? t.app).inject({
    method: 'POST',
    url: '/chat/events',
    payload,
    headers: {
      'content-type': 'application/json',
      'x-slack-request-timestamp': timestamp,
      'x-slack-signature': slackSignature(options.secret ?? chatSigningSecret, timestamp, payload),
      ...(options.retry ? { 'x-slack-retry-num': String(options.retry), 'x-slack-retry-reason': 'http_timeout' } : {}),
    },
  });
}

/** Resolves once the server's worker has applied every stored delivery (fails after 10 s). */
export async function chatEventsApplied(t: TestApp): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const row = await t.database.db
      .selectFrom('chat_event_queue')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('applied_at', 'is', null)
      .executeTakeFirstOrThrow();
    if (Number(row.n) === 0) return;
    if (Date.now() > deadline) throw new Error('the chat event queue did not drain in 10 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
