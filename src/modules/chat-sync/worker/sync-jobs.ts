import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../../db/database.js';
import type { Clock } from '../../../shared/clock.js';
import { PolledDrain } from '../../../shared/polled-drain.js';
import type { SecretBox } from '../../../shared/secret-box.js';
import { addMillis, type DurationMs, durationMs, type EpochMillis } from '../../../shared/time.js';
import { BackfillInterrupted, runRecordedBackfill } from '../commands/sync-jobs.js';
import { type ClaimedJob, claimJob, finishJob, releaseJob, renewJob } from '../queries/jobs.js';
import { checkChatConnection } from '../reads/status.js';
import { backfillFailure } from '../rules/backfill-failure.js';
import { progressOf } from '../rules/sync-progress.js';

export interface SyncJobWorkerOptions {
  database: Database;
  clock: Clock;
  box: SecretBox;
  apiUrl: string;
  timeoutMs: DurationMs;
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
  pollMs?: DurationMs;
  /** How long a claim holds a job without news from its worker (renewed every third of it). */
  leaseMs?: DurationMs;
}

/** Claims after which a job is given up (an instance dying on it each time, or stopped each time). */
const maxJobAttempts = 10;

/** The job is no longer this worker's: another instance took it over, or the server stops. */
class JobLeft extends BackfillInterrupted {
  constructor(readonly why: 'lease lost' | 'stopping') {
    super(why);
  }
}

/**
 * Runs the backfills queued through `POST /admin/v0/chat/sync_jobs`, one at a time per instance,
 * in the server process. A job is claimed with a lease (FOR UPDATE SKIP LOCKED on PostgreSQL) that
 * the worker renews while it runs (every third of the lease, and with the progress of each page);
 * an instance that dies leaves its lease to run out, and the next claim takes the job over, resuming
 * from the backfill's checkpoints. Every write names the lease it holds, so a worker that lost its
 * job writes nothing more of it and stops at its next page.
 */
export class ChatSyncJobWorker {
  private readonly loop: PolledDrain;
  private readonly leaseMs: DurationMs;

  constructor(private readonly options: SyncJobWorkerOptions) {
    this.leaseMs = options.leaseMs ?? durationMs(60_000);
    this.loop = new PolledDrain(
      () => this.drain(),
      (error) => options.log.error({ err: error }, 'chat sync job worker: drain failed'),
    );
  }

  start(): void {
    this.loop.start(this.options.pollMs ?? durationMs(1000));
  }

  /** Runs what is queued now (a job was just started). */
  wake(): void {
    this.loop.wake();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  private async drain(): Promise<void> {
    while (!this.loop.isStopped) {
      const now = this.options.clock.now();
      const job = await claimJob(this.options.database, now, this.leaseMs);
      if (!job) return;
      await this.run(job, addMillis(now, this.leaseMs));
    }
  }

  private async run(job: ClaimedJob, claimed: EpochMillis): Promise<void> {
    const { database, clock, log } = this.options;
    const { db } = database;
    let lease = claimed;
    if (job.attempts > maxJobAttempts) {
      await finishJob(db, job.id, lease, { state: 'failed', error: `given up after ${maxJobAttempts} attempts`, now: clock.now() });
      return;
    }
    // One renewal at a time: the timer's and the pages' are chained.
    let chain: Promise<boolean> = Promise.resolve(true);
    let left: JobLeft | null = null;
    const renew = (progress?: string): Promise<boolean> => {
      chain = chain.then(async (held) => {
        if (!held) return false;
        const now = clock.now();
        const until = addMillis(now, this.leaseMs);
        const ok = await renewJob(db, job.id, lease, until, { now, ...(progress === undefined ? {} : { progress }) });
        if (ok) lease = until;
        else left ??= new JobLeft('lease lost');
        return ok;
      });
      return chain;
    };
    if (!(await renew())) return;
    const timer = setInterval(() => void renew().catch(() => {}), Math.max(50, Math.floor(this.leaseMs / 3)));
    timer.unref();
    log.info({ job_id: job.id, community_id: job.community_id, attempts: job.attempts }, 'chat sync job started');
    try {
      // The console shows the bot's presence and the tokens as this run found them.
      await checkChatConnection(this.options, job.community_id).catch(() => {});
      const summary = await runRecordedBackfill(
        {
          database,
          clock,
          box: this.options.box,
          apiUrl: this.options.apiUrl,
          timeoutMs: this.options.timeoutMs,
          onPage: async (running) => {
            if (this.loop.isStopped) throw new JobLeft('stopping');
            await renew(JSON.stringify(progressOf(running)));
            if (left) throw left;
          },
          communityId: job.community_id,
        },
        { ...(job.since === null ? {} : { since: job.since }), jobId: job.id },
      );
      clearInterval(timer);
      await chain;
      await finishJob(db, job.id, lease, {
        state: 'succeeded',
        progress: JSON.stringify(progressOf(summary)),
        error: null,
        now: clock.now(),
      });
      log.info({ job_id: job.id, community_id: job.community_id }, 'chat sync job succeeded');
    } catch (error) {
      clearInterval(timer);
      await chain.catch(() => false);
      if (error instanceof JobLeft) {
        // Stopping: the job is released at once, so the next claim (another instance, or this one
        // after a restart) resumes it from the checkpoints. Lost: another instance runs it now.
        if (error.why === 'stopping') await releaseJob(db, job.id, lease, clock.now());
        log.warn({ job_id: job.id, why: error.why }, 'chat sync job left unfinished');
        return;
      }
      const message = backfillFailure(error);
      await finishJob(db, job.id, lease, { state: 'failed', error: message, now: clock.now() });
      log.warn({ job_id: job.id, community_id: job.community_id, error: message }, 'chat sync job failed');
    }
  }
}
