import { setImmediate } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import { type ChatReader, createSlackReader } from '../../../chat/slack-reader.js';
import type { Database } from '../../../db/database.js';
import type { Clock } from '../../../shared/clock.js';
import { PolledDrain } from '../../../shared/polled-drain.js';
import type { SecretBox } from '../../../shared/secret-box.js';
import { addMillis, type DurationMs, durationMs, epochMillis, millisFromMicros } from '../../../shared/time.js';
import { writeCommunityData } from '../../../write-path/write-community-data.js';
import { applyEvent, prepareEvent } from '../commands/apply-event.js';
import { claimEvents, markEventApplied, type QueuedEvent, recordFailure } from '../queries/event-queue.js';
import { selectSyncConnection } from '../reads/connections.js';
import { describeChatEventOutcome } from '../rules/event-outcome.js';
import type { SlackObject } from '../rules/slack-records.js';

export interface WorkerDeps {
  database: Database;
  clock: Clock;
  box: SecretBox;
  apiUrl: string;
  timeoutMs: DurationMs;
  log: FastifyBaseLogger;
  /** How often the queue is looked at when nothing wakes the worker (deliveries of other instances, retries). */
  pollMs?: DurationMs;
}

const leaseMs = durationMs(60_000);
const batch = 20;
const maxAttempts = 8;

/**
 * Applies stored Events API deliveries, oldest first, in the server process. Each delivery is
 * marked applied in the same transaction as its writes, under the condition that it was not
 * applied yet: whatever the leases do (an instance that stalls past its lease, two instances),
 * a delivery changes the data once.
 */
export class ChatEventWorker {
  private readonly loop: PolledDrain;
  private readonly readers = new Map<string, { token: string; reader: ChatReader }>();

  constructor(private readonly deps: WorkerDeps) {
    this.loop = new PolledDrain(
      () => this.drain(),
      (error) => deps.log.error({ err: error }, 'chat event worker: drain failed'),
    );
  }

  start(): void {
    this.loop.start(this.deps.pollMs ?? durationMs(1000));
  }

  /** Drains the queue now (a delivery was just stored). */
  wake(): void {
    this.loop.wake();
  }

  /** Resolves when the queue is empty of what this worker can claim now (tests). */
  idle(): Promise<void> {
    return this.loop.idle();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  private async drain(): Promise<void> {
    for (;;) {
      if (this.loop.isStopped) return;
      const events = await claimEvents(this.deps.database, this.deps.clock.now(), leaseMs, batch);
      if (events.length === 0) return;
      for (const event of events) {
        await this.process(event);
        // On SQLite every statement completes at once, so a drain would run as one chain of
        // microtasks and hold off the acknowledgements of new deliveries until the batch is done:
        // let waiting requests in between two events.
        await setImmediate();
      }
    }
  }

  private readerFor(communityId: string, token: string): ChatReader {
    // A reader is reused while the stored token is the same one (not a secret check: both come from our own table).
    const cached = this.readers.get(`${communityId}\u0000${token}`);
    if (cached) return cached.reader;
    const reader = createSlackReader({ token, apiUrl: this.deps.apiUrl, timeoutMs: this.deps.timeoutMs });
    this.readers.set(`${communityId}\u0000${token}`, { token, reader });
    return reader;
  }

  private async process(event: QueuedEvent): Promise<void> {
    const { database, clock, box } = this.deps;
    try {
      const connection = await selectSyncConnection(database.db, box, event.community_id);
      if (!connection) {
        await recordFailure(database.db, event, 'the community has no chat bot connection any more', epochMillis(0), true, clock.now());
        return;
      }
      const envelope = JSON.parse(event.body) as SlackObject;
      const slackEvent = (envelope.event ?? {}) as SlackObject;
      const prepared = await prepareEvent(
        { db: database.db, reader: this.readerFor(event.community_id, connection.botToken) },
        { connection, event: slackEvent },
      );
      const outcome = await writeCommunityData({ database, clock }, event.community_id, async (w) => {
        if (!(await markEventApplied(w.tx, event.community_id, event.event_id, millisFromMicros(w.now))))
          return { kind: 'already_applied' } as const;
        return applyEvent(w, { connection, event: slackEvent, prepared });
      });
      this.deps.log.debug(
        { event_id: event.event_id, event_type: event.event_type, outcome: describeChatEventOutcome(outcome) },
        'chat event applied',
      );
    } catch (error) {
      // Codes and messages of our own errors only: an error never carries the token or the body here.
      const reason = error instanceof Error ? `${error.name}: ${error.message}` : 'unknown error';
      const giveUp = event.attempts >= maxAttempts;
      const retryAt = addMillis(clock.now(), durationMs(Math.min(60_000, 1000 * 2 ** event.attempts)));
      this.deps.log.warn(
        { event_id: event.event_id, event_type: event.event_type, attempts: event.attempts, reason, giveUp },
        'chat event not applied',
      );
      await recordFailure(database.db, event, reason, retryAt, giveUp, clock.now());
    }
  }
}
