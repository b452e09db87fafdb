import type { FastifyBaseLogger } from 'fastify';
import { ChatReadError, createSlackReader } from '../../chat/slack-reader.js';
import { PolledDrain } from '../../shared/polled-drain.js';
import type { SecretBox } from '../../shared/secret-box.js';
import { addMillis, type DurationMs, durationMs } from '../../shared/time.js';
import { selectSyncConnection } from '../chat-sync/reads/connections.js';
import type { AwardDeps } from './awards.commands.js';
import { type ClaimedNotification, claimNotifications, settleNotification } from './awards.queries.js';

/** How the worker reaches Slack and reports (its data comes through AwardDeps). */
export interface AwardWorkerOptions {
  box: SecretBox;
  apiUrl: string;
  timeoutMs: DurationMs;
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
  pollMs?: DurationMs;
}

const leaseMs = durationMs(120_000);
const batch = 20;
const maxNotificationAttempts = 8;

/** Slack answers that no retry can change: the message is given up at once. */
const permanentErrors = new Set([
  'channel_not_found',
  'user_not_found',
  'user_disabled',
  'cannot_dm_bot',
  'not_in_channel',
  'is_archived',
  'invalid_auth',
  'account_inactive',
  'token_revoked',
  'not_authed',
  'missing_scope',
  'msg_too_long',
]);

/** The wait before attempt `attempts + 1` (ms): 5 s, 20 s, 80 s, ... at most an hour. */
export const notificationRetryDelay = (attempts: number): DurationMs => durationMs(Math.min(3_600_000, 5000 * 4 ** (attempts - 1)));

/**
 * Sends the direct messages that tell award recipients, from the `award_notifications` queue (rows
 * written in the assignment's transaction), in the server process and never in a request's path.
 * Each attempt is leased (FOR UPDATE SKIP LOCKED on PostgreSQL), so instances share the queue; a
 * failure is retried with backoff (Slack's 429 and 5xx are first waited out by the Slack client),
 * up to eight attempts, except answers no retry can change.
 */
export class AwardNotificationWorker {
  private readonly loop: PolledDrain;

  constructor(
    private readonly deps: AwardDeps,
    private readonly options: AwardWorkerOptions,
  ) {
    this.loop = new PolledDrain(
      () => this.drain(),
      (error) => options.log.error({ err: error }, 'award notification worker: drain failed'),
    );
  }

  start(): void {
    this.loop.start(this.options.pollMs ?? durationMs(1000));
  }

  /** Sends what is due now (an assignment was just committed). */
  wake(): void {
    this.loop.wake();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  private async drain(): Promise<void> {
    while (!this.loop.isStopped) {
      const claimed = await claimNotifications(this.deps.database, this.deps.clock.now(), leaseMs, batch);
      if (claimed.length === 0) return;
      for (const notification of claimed) await this.send(notification);
    }
  }

  private async send(notification: ClaimedNotification): Promise<void> {
    const { database, clock } = this.deps;
    const { box, log } = this.options;
    const connection = await selectSyncConnection(database.db, box, notification.community_id);
    if (!connection) {
      await settleNotification(database, notification.id, clock.now(), { sent: false, error: 'no chat bot connection', retryAt: null });
      return;
    }
    try {
      const reader = createSlackReader({ token: connection.botToken, apiUrl: this.options.apiUrl, timeoutMs: this.options.timeoutMs });
      await reader.call('chat.postMessage', { channel: notification.channel, text: notification.text });
      await settleNotification(database, notification.id, clock.now(), { sent: true });
    } catch (error) {
      // Slack's code or ours only: an error here never carries the token.
      const code = error instanceof ChatReadError ? error.code : error instanceof Error ? error.name : 'unknown';
      const giveUp = permanentErrors.has(code) || notification.attempts >= maxNotificationAttempts;
      const retryAt = giveUp ? null : addMillis(clock.now(), notificationRetryDelay(notification.attempts));
      log.warn({ notification_id: notification.id, attempts: notification.attempts, code, give_up: giveUp }, 'award message not sent');
      await settleNotification(database, notification.id, clock.now(), { sent: false, error: code, retryAt });
    }
  }
}
