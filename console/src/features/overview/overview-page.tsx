import type { ComponentChildren } from 'preact';
import { useSession } from '../../session/session-context.js';
import { DateTime } from '../../shared/date-time.js';
import { PageTitle } from '../../shared/layout.js';
import { Empty, Loaded } from '../../shared/states.js';
import { useRequest } from '../../shared/use-request.js';
import { type ChatStatus, chatStatus, counts, type Endpoint, latestActivity, webhookEndpoints } from './overview.data.js';

function Section({ id, title, children }: { id: string; title: string; children: ComponentChildren }) {
  return (
    <section class="card overview-part" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

function Count({ name, href, load }: { name: string; href: string; load: () => Promise<number> }) {
  const state = useRequest(load, []);
  return (
    <div class="count">
      <dt>
        <a href={href}>{name}</a>
      </dt>
      <dd>
        <Loaded state={state} what={name.toLowerCase()}>
          {(n) => <span class="count-value">{n}</span>}
        </Loaded>
      </dd>
    </div>
  );
}

function slackState(status: ChatStatus): string {
  const { bot_token: bot, admin_token: admin } = status;
  if (!bot.stored && !admin.stored) return 'Not connected';
  if (bot.valid === false || admin.valid === false) return 'Connected, but a token was refused when last checked';
  return 'Connected';
}

function Slack({ status }: { status: ChatStatus }) {
  return (
    <dl class="facts">
      <dt>State</dt>
      <dd>{slackState(status)}</dd>
      {status.team_url ? (
        <>
          <dt>Workspace</dt>
          <dd>{status.team_url}</dd>
        </>
      ) : null}
      <dt>Last sync</dt>
      <dd>
        {status.last_sync ? (
          <>
            <DateTime value={status.last_sync.at} /> ({status.last_sync.result}
            {status.last_sync.error ? `: ${status.last_sync.error}` : ''})
          </>
        ) : (
          'Never'
        )}
      </dd>
      <dt>Event queue</dt>
      <dd>
        {status.event_queue.length} waiting
        {status.event_queue.lag_seconds ? ` (the oldest for ${Math.round(status.event_queue.lag_seconds)} s)` : ''}
      </dd>
    </dl>
  );
}

/** "Failing" is what the API says: an endpoint disabled (it answered 410 or failed past the retry schedule). */
function Webhooks({ endpoints }: { endpoints: Endpoint[] }) {
  if (endpoints.length === 0) return <Empty>No webhook endpoint is registered.</Empty>;
  const failing = endpoints.filter((endpoint) => endpoint.disabled);
  if (failing.length === 0)
    return (
      <p>
        {endpoints.length} endpoint{endpoints.length === 1 ? '' : 's'}, none failing.
      </p>
    );
  return (
    <>
      <p>
        {failing.length} of {endpoints.length} endpoint{endpoints.length === 1 ? '' : 's'} failing (disabled):
      </p>
      <ul class="failing">
        {failing.map((endpoint) => (
          <li key={endpoint.id}>
            <span class="endpoint-url">{endpoint.url}</span>: {endpoint.disabled_reason ?? 'disabled'}
            {endpoint.disabled_at ? (
              <>
                {' '}
                (since <DateTime value={endpoint.disabled_at} />)
              </>
            ) : null}
          </li>
        ))}
      </ul>
    </>
  );
}

export function OverviewPage() {
  const { session, client } = useSession();
  const slack = useRequest(() => chatStatus(client), []);
  const webhooks = useRequest(() => webhookEndpoints(client), []);
  const activity = useRequest(() => latestActivity(client), []);
  return (
    <>
      <PageTitle name="Overview" />
      <dl class="facts">
        <dt>Community</dt>
        <dd>{session.community.name}</dd>
        <dt>Plan</dt>
        <dd>{session.community.plan}</dd>
        <dt>Community id</dt>
        <dd>
          <code>{session.community.id}</code>
        </dd>
      </dl>
      <Section id="counts-title" title="Counts">
        <dl class="counts">
          <Count name="Members" href="/console/members" load={() => counts.members(client)} />
          <Count name="Upcoming events" href="/console/events" load={() => counts.events(client)} />
          <Count name="Feeds" href="/console/posts" load={() => counts.feeds(client)} />
          <Count name="Files" href="/console/files" load={() => counts.files(client)} />
        </dl>
      </Section>
      <div class="overview-grid">
        <Section id="slack-title" title="Slack">
          <Loaded state={slack} what="the Slack connection">
            {(status) => <Slack status={status} />}
          </Loaded>
          <p>
            <a href="/console/slack">The Slack page</a>
          </p>
        </Section>
        <Section id="webhooks-title" title="Webhook endpoints">
          <Loaded state={webhooks} what="webhook endpoints">
            {(endpoints) => <Webhooks endpoints={endpoints} />}
          </Loaded>
          <p>
            <a href="/console/webhooks">The Webhooks page</a>
          </p>
        </Section>
      </div>
      <Section id="activity-title" title="Latest activity">
        <Loaded state={activity} what="the latest activity">
          {(records) =>
            records.length === 0 ? (
              <Empty>Nothing has been recorded yet.</Empty>
            ) : (
              <ol class="activity">
                {records.map((record) => (
                  <li key={record.id}>
                    <DateTime value={record.occurred_at} /> <code>{record.action}</code>
                    {record.target.name ? <> “{record.target.name}”</> : null}
                    <span class="muted"> by {record.actor.label ?? record.actor.type.replace('_', ' ')}</span>
                  </li>
                ))}
              </ol>
            )
          }
        </Loaded>
        <p>
          <a href="/console/activity">The whole activity log</a>
        </p>
      </Section>
    </>
  );
}
