import { useEffect, useState } from 'preact/hooks';
import { useClient } from '../../session/session-context.js';
import { DateTime } from '../../shared/date-time.js';
import { ErrorState } from '../../shared/states.js';
import { type Problem, problemOf } from '../../shared/use-request.js';
import { getJob, jobEnded, pollMs, type SyncJob } from './slack.data.js';

const stateNames: Record<SyncJob['state'], string> = {
  queued: 'Queued',
  running: 'Running',
  succeeded: 'Succeeded',
  failed: 'Failed',
};

/** A backfill's progress: polled until it ends, then `onEnded` (the status changes with it). */
export function SyncJobProgress({ job: first, onEnded }: { job: SyncJob; onEnded: () => void }) {
  const client = useClient();
  const [job, setJob] = useState(first);
  const [problem, setProblem] = useState<Problem | null>(null);

  useEffect(() => {
    if (jobEnded(job)) {
      if (!jobEnded(first)) return;
      // Already over when shown (a job that ended between the status and the start): nothing to poll.
      onEnded();
      return;
    }
    const timer = setTimeout(() => {
      getJob(client, job.id).then(
        (next) => {
          setProblem(null);
          setJob(next);
          if (jobEnded(next)) onEnded();
        },
        // Keeps polling: a lost answer is not the job's failure.
        (error: unknown) => {
          setProblem(problemOf(error));
          setJob({ ...job });
        },
      );
    }, pollMs);
    return () => clearTimeout(timer);
  }, [job]);

  const { progress } = job;
  return (
    <section class="card" aria-labelledby="sync-job-title" aria-busy={!jobEnded(job)}>
      <h2 id="sync-job-title">Backfill</h2>
      <p>
        <output>
          <span class={`status status-${job.state}`}>{stateNames[job.state]}</span>
          {job.since ? (
            <>
              {' '}
              · messages since <DateTime value={job.since} />
            </>
          ) : (
            ' · the whole history'
          )}
        </output>
      </p>
      {job.state === 'failed' && job.error ? (
        <div class="state state-error">
          <p class="error-message">{job.error}</p>
        </div>
      ) : null}
      <dl class="facts">
        <dt>Users</dt>
        <dd>
          {progress.users.read} read, {progress.users.changed} changed
        </dd>
        <dt>Channels</dt>
        <dd>
          {progress.channels.read} read, {progress.channels.changed} changed
        </dd>
        <dt>Messages</dt>
        <dd>
          {progress.messages.read} read, {progress.messages.posts_created} posts created, {progress.messages.posts_updated} updated,{' '}
          {progress.messages.skipped} skipped
        </dd>
        <dt>Rate-limit waits</dt>
        <dd>{progress.rate_limit_waits}</dd>
        <dt>Started</dt>
        <dd>
          <DateTime value={job.started_at} />
        </dd>
        <dt>Finished</dt>
        <dd>
          <DateTime value={job.finished_at} />
        </dd>
        <dt>Duration</dt>
        <dd>{progress.seconds.toFixed(1)} s</dd>
      </dl>
      {problem ? <ErrorState problem={problem} /> : null}
    </section>
  );
}
