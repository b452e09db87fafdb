import type { Database } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { durationMs, microsFromMillis, subtractMillis } from '../../shared/time.js';
import { communitiesWithActivities, pruneOldestActivities } from './activities.queries.js';

/** How many records one statement removes: small, so that no request waits behind a long delete. */
const batchSize = 500;
const passIntervalMs = 60 * 60 * 1000;
const dayMs = 24 * 60 * 60 * 1000;

export interface ActivityRetentionOptions {
  database: Database;
  clock: Clock;
  /** Records older than this many days go; 0 keeps every record (the worker does nothing). */
  retentionDays: number;
  log: { error(object: object, message: string): void; info(object: object, message: string): void };
}

/**
 * Removes activity records past ACTIVITY_RETENTION_DAYS (docs/activity.md): a pass when the server
 * starts, then one an hour, community by community, oldest first, `batchSize` records per delete
 * with a turn of the event loop between deletes, so that requests are never blocked behind it.
 * Each delete removes a prefix of the community's chain: the first record kept anchors the rest,
 * which still verifies. Every instance runs it; two at once delete the same prefix, harmlessly.
 */
export class ActivityRetentionWorker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private stopped = true;
  /** Set by stop(): a pass under way ends after its current delete. */
  private halted = false;

  constructor(private readonly options: ActivityRetentionOptions) {}

  start(): void {
    if (this.options.retentionDays === 0 || !this.stopped) return;
    this.stopped = false;
    const run = () => {
      void this.pass().catch((error: unknown) => this.options.log.error({ err: error }, 'activity retention: pass failed'));
    };
    run();
    this.timer = setInterval(run, passIntervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.halted = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => 0);
  }

  /** One pass over every community; answers how many records it removed. Never runs twice at once. */
  pass(): Promise<number> {
    this.running ??= this.prune().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async prune(): Promise<number> {
    const { database, clock, retentionDays } = this.options;
    if (retentionDays === 0) return 0;
    const cutoff = microsFromMillis(subtractMillis(clock.now(), durationMs(retentionDays * dayMs)));
    let removed = 0;
    for (const { community_id } of await communitiesWithActivities(database.db)) {
      for (;;) {
        if (this.halted) return removed;
        const n = await pruneOldestActivities(database.db, community_id, cutoff, batchSize);
        removed += n;
        if (n < batchSize) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    if (removed > 0) this.options.log.info({ removed }, 'activity retention: removed records past ACTIVITY_RETENTION_DAYS');
    return removed;
  }
}
