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

export const WebhooksPage = () => (
  <Stub name="Webhooks" what="Webhook endpoints and their delivery log (each attempt), with redelivery and test events, will show here." />
);
export const SlackPage = () => (
  <Stub name="Slack" what="The Slack connection, the bot's presence, the last sync, the event queue's lag and backfills will show here." />
);
export const ActivityPage = () => (
  <Stub name="Activity" what="The activity log, filtered by actor, action, target and time, and its export, will show here." />
);
export const NotFoundPage = () => (
  <>
    <PageTitle name="Page not found" />
    <p>
      There is no such page in the console. <a href="/console/">Go to the overview</a>.
    </p>
  </>
);
