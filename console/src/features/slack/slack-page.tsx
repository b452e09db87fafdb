import { useEffect, useState } from 'preact/hooks';
import { useClient } from '../../session/session-context.js';
import { DateTime } from '../../shared/date-time.js';
import { Field } from '../../shared/field.js';
import { PageTitle } from '../../shared/layout.js';
import { type Page, PagedTable } from '../../shared/paged-table.js';
import { Empty, ErrorState, Loaded } from '../../shared/states.js';
import { type Problem, problemOf, useRequest } from '../../shared/use-request.js';
import { type ChatStatus, getStatus, type SyncJob, startBackfill, type TokenState } from './slack.data.js';
import { SyncJobProgress } from './sync-job.js';

type Channel = ChatStatus['channels'][number];

const asPage = <R,>(records: R[]): Page<R> => ({
  page: 0,
  per_page: Math.max(records.length, 1),
  count: records.length,
  total_records: records.length,
  total_pages: 1,
  has_next: false,
  records,
});

function tokenText(token: TokenState): string {
  if (!token.stored) return 'Not connected';
  if (token.valid === false) return `Refused by Slack${token.error ? ` (${token.error})` : ''}`;
  if (token.valid === true) return 'Connected';
  return 'Stored, not checked yet';
}

function Token({ token }: { token: TokenState }) {
  const cls = !token.stored ? 'muted' : token.valid === false ? 'status status-failed' : token.valid ? 'status status-succeeded' : '';
  return (
    <>
      <span class={cls}>{tokenText(token)}</span>
      {token.checked_at ? (
        <span class="muted">
          {' '}
          · checked <DateTime value={token.checked_at} />
        </span>
      ) : null}
    </>
  );
}

const presence = (channel: Channel) =>
  channel.bot_is_member === null ? 'Not checked yet' : channel.bot_is_member ? 'In the channel' : 'Not in the channel';

function lagText(queue: ChatStatus['event_queue']): string {
  if (queue.length === 0) return 'No events waiting';
  const lag = queue.lag_seconds === null ? '' : `, the oldest waiting ${queue.lag_seconds.toFixed(0)} s`;
  return `${queue.length} ${queue.length === 1 ? 'event' : 'events'} waiting${lag}`;
}

function StatusView({ status }: { status: ChatStatus }) {
  return (
    <>
      <section class="card" aria-labelledby="connection-title">
        <h2 id="connection-title">Connection</h2>
        <dl class="facts">
          <dt>Bot</dt>
          <dd>
            <Token token={status.bot_token} />
          </dd>
          <dt>Admin token</dt>
          <dd>
            <Token token={status.admin_token} />
          </dd>
          <dt>Workspace</dt>
          <dd>
            {status.team_id ? <code>{status.team_id}</code> : <span class="muted">—</span>}
            {status.team_url ? <> · {status.team_url}</> : null}
          </dd>
          <dt>Bot user</dt>
          <dd>{status.bot_user_id ? <code>{status.bot_user_id}</code> : <span class="muted">—</span>}</dd>
          <dt>Last sync</dt>
          <dd>
            {status.last_sync ? (
              <>
                <span class={`status status-${status.last_sync.result}`}>{status.last_sync.result}</span>{' '}
                <DateTime value={status.last_sync.at} />
                {status.last_sync.error ? <> · {status.last_sync.error}</> : null}
              </>
            ) : (
              <span class="muted">Never</span>
            )}
          </dd>
          <dt>Event queue</dt>
          <dd>
            {lagText(status.event_queue)}
            {status.event_queue.oldest_received_at ? (
              <span class="muted">
                {' '}
                (since <DateTime value={status.event_queue.oldest_received_at} />)
              </span>
            ) : null}
          </dd>
        </dl>
      </section>
      <PagedTable
        caption="Channels bound to feeds"
        page={asPage(status.channels)}
        rowKey={(channel) => channel.channel_id}
        onPage={() => undefined}
        empty="No channel is bound to a feed yet (community-admin chat feed add)."
        columns={[
          { header: 'Channel', cell: (c) => (c.name ? `#${c.name}` : c.channel_id) },
          { header: 'Feeds', cell: (c) => String(c.feed_ids.length) },
          { header: 'Bot presence', cell: (c) => presence(c) },
          { header: 'Checked', cell: (c) => <DateTime value={c.checked_at} /> },
          { header: 'Problem', cell: (c) => c.error ?? <span class="muted">—</span> },
        ]}
      />
    </>
  );
}

export function SlackPage() {
  const client = useClient();
  const [check, setCheck] = useState(0);
  const status = useRequest(() => getStatus(client, check > 0), [check]);
  // The job watched here: the one started from the page, or the one running when the page opened.
  const [watched, setWatched] = useState<SyncJob | null>(null);
  const [ended, setEnded] = useState(false);
  const [since, setSince] = useState('');
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);

  const start = async (e: Event) => {
    e.preventDefault();
    setProblem(null);
    setBusy(true);
    try {
      setWatched(await startBackfill(client, since || null));
      setEnded(false);
    } catch (error) {
      setProblem(problemOf(error));
    } finally {
      setBusy(false);
    }
  };
  const active = status.status === 'ok' ? status.data.active_job : null;
  useEffect(() => {
    if (active && active.id !== watched?.id) {
      setWatched(active);
      setEnded(false);
    }
  }, [active?.id]);
  const running = watched !== null && !ended;

  return (
    <>
      <PageTitle name="Slack">
        <button type="button" onClick={() => setCheck((n) => n + 1)}>
          Check with Slack now
        </button>
      </PageTitle>
      <Loaded state={status} what="the Slack connection">
        {(data) =>
          data.bot_token.stored || data.admin_token.stored ? (
            <StatusView status={data} />
          ) : (
            <Empty>
              This community is not connected to Slack. Connect its bot where the server runs:{' '}
              <code>community-admin chat connect --community {data.community_id} --bot-token xoxb-… --signing-secret …</code>
            </Empty>
          )
        }
      </Loaded>
      <form class="card inline-form narrow-fields" onSubmit={start} aria-labelledby="backfill-title" noValidate>
        <h2 id="backfill-title" class="form-title">
          Start a backfill
        </h2>
        <Field label="Messages since (optional)" help="Empty: the whole history. Users and channels are always read in full.">
          {(p) => <input {...p} type="date" value={since} onInput={(e) => setSince(e.currentTarget.value)} />}
        </Field>
        <button type="submit" class="primary" disabled={busy || running}>
          Start backfill
        </button>
      </form>
      {problem ? <ErrorState problem={problem} /> : null}
      {watched ? (
        <SyncJobProgress
          key={watched.id}
          job={watched}
          onEnded={() => {
            setEnded(true);
            status.reload();
          }}
        />
      ) : null}
    </>
  );
}
