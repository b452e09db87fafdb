import { useState } from 'preact/hooks';
import { useClient } from '../../session/session-context.js';
import { ConfirmDialog } from '../../shared/confirm-dialog.js';
import { DateTime } from '../../shared/date-time.js';
import { Field } from '../../shared/field.js';
import { fromLocalInput, toLocalInput } from '../../shared/local-input.js';
import { PagedTable } from '../../shared/paged-table.js';
import { ErrorState, Loaded } from '../../shared/states.js';
import { type Problem, problemOf, useRequest } from '../../shared/use-request.js';
import { type Attempt, type Endpoint, listDeliveries, redeliver, redeliverFailed } from './webhooks.data.js';

const dayMs = 86_400_000;

function AttemptLine({ attempt }: { attempt: Attempt }) {
  const ok = attempt.status !== null && attempt.status >= 200 && attempt.status < 300;
  return (
    <li class={ok ? 'attempt attempt-ok' : 'attempt attempt-failed'}>
      <span class="attempt-outcome">{ok ? 'Succeeded' : 'Failed'}</span> ·{' '}
      {attempt.status === null ? 'no answer' : `HTTP ${attempt.status}`} · {attempt.duration_ms} ms ·{' '}
      <DateTime value={attempt.attempted_at} />
      {attempt.error ? <span class="attempt-error"> · {attempt.error}</span> : null}
    </li>
  );
}

/** One endpoint's deliveries, newest first, each with every attempt; redeliver one, or every failed one since a time. */
export function DeliveryLog({ endpoint }: { endpoint: Endpoint }) {
  const client = useClient();
  const [failedOnly, setFailedOnly] = useState(false);
  const [page, setPage] = useState(0);
  const [since, setSince] = useState(() => toLocalInput(new Date(Date.now() - dayMs)));
  const [sinceError, setSinceError] = useState('');
  const [asking, setAsking] = useState<string | null>(null);
  const [notice, setNotice] = useState('');
  const [problem, setProblem] = useState<Problem | null>(null);
  const log = useRequest(() => listDeliveries(client, endpoint.id, failedOnly, page), [endpoint.id, failedOnly, page]);

  const act = async (run: () => Promise<string>) => {
    setProblem(null);
    setNotice('');
    try {
      setNotice(await run());
      log.reload();
    } catch (error) {
      setProblem(problemOf(error));
    }
  };
  const askRedeliverFailed = (e: Event) => {
    e.preventDefault();
    const instant = fromLocalInput(since);
    setSinceError(instant ? '' : 'Give a date and time.');
    if (instant) setAsking(instant);
  };
  const confirmRedeliverFailed = (confirmed: boolean) => {
    const instant = asking;
    setAsking(null);
    if (!confirmed || !instant) return;
    void act(async () => {
      const result = await redeliverFailed(client, endpoint.id, instant);
      const queued = `Queued ${result.queued} failed ${result.queued === 1 ? 'delivery' : 'deliveries'} again.`;
      return result.remaining > 0 ? `${queued} ${result.remaining} more are still failed: queue again to send them.` : queued;
    });
  };

  return (
    <section class="card" aria-labelledby="delivery-log-title">
      <h2 id="delivery-log-title">Deliveries to {endpoint.url}</h2>
      <div class="filters">
        <label class="choice">
          <input
            type="checkbox"
            checked={failedOnly}
            onChange={(e) => {
              setFailedOnly(e.currentTarget.checked);
              setPage(0);
            }}
          />
          <span>Failed only</span>
        </label>
        <button type="button" onClick={log.reload}>
          Refresh
        </button>
      </div>
      <form class="inline-form narrow-fields" onSubmit={askRedeliverFailed} noValidate aria-label="Redeliver failed deliveries">
        <Field label="Failed since" error={sinceError} help="Every failed delivery created at or after this time is sent again.">
          {(p) => <input {...p} type="datetime-local" value={since} onInput={(e) => setSince(e.currentTarget.value)} />}
        </Field>
        <button type="submit">Redeliver failed</button>
      </form>
      <output class="notice">{notice}</output>
      {problem ? <ErrorState problem={problem} /> : null}
      <Loaded state={log} what="deliveries">
        {(deliveries) => (
          <PagedTable
            caption="Deliveries"
            page={deliveries}
            rowKey={(d) => d.id}
            onPage={setPage}
            empty={failedOnly ? 'No failed deliveries.' : 'No deliveries yet: they appear when an event of its types happens.'}
            columns={[
              {
                header: 'Event',
                cell: (d) => (
                  <>
                    <code>{d.type}</code>
                    <br />
                    <span class="muted">{d.webhook_id}</span>
                  </>
                ),
              },
              {
                header: 'Status',
                cell: (d) => (
                  <>
                    <span class={`status status-${d.status}`}>{d.status}</span>
                    {d.status === 'pending' && d.next_attempt_at ? (
                      <span class="muted">
                        {' '}
                        next try <DateTime value={d.next_attempt_at} />
                      </span>
                    ) : null}
                  </>
                ),
              },
              {
                header: 'Attempts',
                cell: (d) =>
                  d.attempt_log.length === 0 ? (
                    <span class="muted">none yet</span>
                  ) : (
                    <ol class="attempts">
                      {d.attempt_log.map((attempt) => (
                        <AttemptLine key={attempt.attempted_at} attempt={attempt} />
                      ))}
                    </ol>
                  ),
              },
              { header: 'Created', cell: (d) => <DateTime value={d.created_at} /> },
              {
                header: 'Actions',
                cell: (d) => (
                  <button
                    type="button"
                    onClick={() =>
                      void act(async () => {
                        await redeliver(client, d.id);
                        return `Queued ${d.type} (${d.webhook_id}) again.`;
                      })
                    }
                    aria-label={`Redeliver ${d.type} ${d.webhook_id}`}
                  >
                    Redeliver
                  </button>
                ),
              },
            ]}
          />
        )}
      </Loaded>
      <ConfirmDialog
        open={asking !== null}
        title="Redeliver failed deliveries?"
        message={
          asking
            ? `Every failed delivery to ${endpoint.url} created since ${new Date(asking).toLocaleString()} will be sent again, with the same webhook-id.`
            : ''
        }
        confirmLabel="Redeliver failed"
        onClose={confirmRedeliverFailed}
      />
    </section>
  );
}
