import { useSession } from '../../session/session-context.js';
import { PageTitle } from '../../shared/layout.js';

// Pages whose API lands with other branches (console-api, console-ops-api, activity-log); phase 2
// replaces each stub with a feature folder like features/events.

function Stub({ name, what }: { name: string; what: string }) {
  return (
    <>
      <PageTitle name={name} />
      <p class="stub">{what}</p>
    </>
  );
}

export function OverviewPage() {
  const { session } = useSession();
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
      <p class="stub">Counts, the Slack connection, failing webhook endpoints and the latest activity will show here.</p>
    </>
  );
}
export const MembersPage = () => (
  <Stub
    name="Members"
    what="Members, searched by name or email, filtered by status and sorted by name or join date, added, deactivated and added to groups, will show here."
  />
);
export const AwardsPage = () => <Stub name="Awards" what="The community's awards, created and assigned here, will show here." />;
export const ApiKeysPage = () => (
  <Stub
    name="API keys"
    what="The community's API keys (label, permissions, created, expires, last used), created, rotated and revoked here, will show here."
  />
);
export const NotFoundPage = () => (
  <>
    <PageTitle name="Page not found" />
    <p>
      There is no such page in the console. <a href="/console/">Go to the overview</a>.
    </p>
  </>
);
