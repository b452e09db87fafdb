import { useState } from 'preact/hooks';
import { useClient } from '../../session/session-context.js';
import { ConfirmDialog } from '../../shared/confirm-dialog.js';
import { CopyButton } from '../../shared/copy-button.js';
import { DateTime } from '../../shared/date-time.js';
import { PageTitle } from '../../shared/layout.js';
import { type Page, PagedTable } from '../../shared/paged-table.js';
import { ErrorState, Loaded } from '../../shared/states.js';
import { type Problem, problemOf, useRequest } from '../../shared/use-request.js';
import { DeliveryLog } from './delivery-log.js';
import { EndpointForm } from './endpoint-form.js';
import {
  type CreatedEndpoint,
  createEndpoint,
  deleteEndpoint,
  type Endpoint,
  listEndpoints,
  listEventTypes,
  sendTest,
  setEnabled,
} from './webhooks.data.js';

/** The endpoints in the list envelope's shape: the API answers them all at once. */
const asPage = (records: Endpoint[]): Page<Endpoint> => ({
  page: 0,
  per_page: Math.max(records.length, 1),
  count: records.length,
  total_records: records.length,
  total_pages: 1,
  has_next: false,
  records,
});

/** A failure that is the receiver's, not the API's: shown like an error, with its hint. */
class ApiAnswer extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

interface Asking {
  title: string;
  message: string;
  label: string;
  run: () => Promise<string>;
}

/** The secret of a new endpoint, shown once with a copy button. */
function SecretPanel({ created, onDone }: { created: CreatedEndpoint; onDone: () => void }) {
  return (
    <section class="card secret" aria-labelledby="secret-title">
      <h2 id="secret-title">Signing secret of {created.url}</h2>
      <p>
        Shown only now: store it where the receiver verifies signatures (Standard Webhooks). It cannot be shown again; to get another,
        delete the endpoint and create it again.
      </p>
      <p class="secret-value">
        <code>{created.secret}</code> <CopyButton value={created.secret} label="the signing secret" />
      </p>
      <div class="actions">
        <button type="button" class="primary" onClick={onDone}>
          I have stored it
        </button>
      </div>
    </section>
  );
}

export function WebhooksPage() {
  const client = useClient();
  const endpoints = useRequest(() => listEndpoints(client), []);
  const [creating, setCreating] = useState(false);
  const eventTypes = useRequest(() => (creating ? listEventTypes(client) : Promise.resolve([])), [creating]);
  const [created, setCreated] = useState<CreatedEndpoint | null>(null);
  // The endpoint whose deliveries are open, in the address (?endpoint=ID) so that a log can be linked to.
  const [shown, setShownState] = useState<string | null>(() => new URLSearchParams(window.location.search).get('endpoint'));
  const setShown = (id: string | null) => {
    setShownState(id);
    history.replaceState(history.state, '', id ? `?endpoint=${encodeURIComponent(id)}` : window.location.pathname);
  };
  const [asking, setAsking] = useState<Asking | null>(null);
  const [notice, setNotice] = useState('');
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);

  const act = async (run: () => Promise<string>) => {
    setProblem(null);
    setNotice('');
    setBusy(true);
    try {
      setNotice(await run());
      endpoints.reload();
    } catch (error) {
      setProblem(error instanceof ApiAnswer ? { message: error.message, hint: error.hint, code: 'not_delivered' } : problemOf(error));
    } finally {
      setBusy(false);
    }
  };
  const confirm = (confirmed: boolean) => {
    const pending = asking;
    setAsking(null);
    if (confirmed && pending) void act(pending.run);
  };
  const test = (endpoint: Endpoint) =>
    act(async () => {
      const result = await sendTest(client, endpoint.id);
      const answer = result.status === null ? 'no answer' : `HTTP ${result.status}`;
      if (result.delivered) return `Test event delivered to ${endpoint.url}: ${answer} in ${result.duration_ms} ms.`;
      // Not an error of the API: the receiver's answer, shown as a failure all the same.
      throw new ApiAnswer(
        `Test event not delivered to ${endpoint.url}: ${answer}${result.error ? ` (${result.error})` : ''}, after ${result.duration_ms} ms.`,
        'Check that the receiver is up and answers 2xx to a POST, then send another test.',
      );
    });
  const toggle = (endpoint: Endpoint) => {
    if (endpoint.disabled) {
      void act(async () => {
        await setEnabled(client, endpoint.id, true);
        return `Enabled ${endpoint.url}.`;
      });
      return;
    }
    setAsking({
      title: 'Disable this endpoint?',
      message: `${endpoint.url} will receive nothing until it is enabled again; its pending deliveries are marked failed (redeliver them after enabling it).`,
      label: 'Disable endpoint',
      run: async () => {
        await setEnabled(client, endpoint.id, false);
        return `Disabled ${endpoint.url}.`;
      },
    });
  };
  const remove = (endpoint: Endpoint) =>
    setAsking({
      title: 'Delete this endpoint?',
      message: `${endpoint.url} will be removed with its pending deliveries. This cannot be undone.`,
      label: 'Delete endpoint',
      run: async () => {
        await deleteEndpoint(client, endpoint.id);
        if (shown === endpoint.id) setShown(null);
        return `Deleted ${endpoint.url}.`;
      },
    });

  return (
    <>
      <PageTitle name="Webhooks">
        <button type="button" class="primary" onClick={() => setCreating(true)}>
          New endpoint
        </button>
      </PageTitle>
      <output class="notice">{notice}</output>
      {creating ? (
        <EndpointForm
          eventTypes={eventTypes}
          onCancel={() => setCreating(false)}
          onSave={async (url, events) => {
            const made = await createEndpoint(client, url, events);
            setCreating(false);
            setCreated(made);
            setNotice(`Created ${made.url}.`);
            endpoints.reload();
          }}
        />
      ) : null}
      {created ? <SecretPanel created={created} onDone={() => setCreated(null)} /> : null}
      {problem ? <ErrorState problem={problem} /> : null}
      <Loaded state={endpoints} what="webhook endpoints">
        {(records) => {
          const current = records.find((endpoint) => endpoint.id === shown);
          return (
            <>
              <PagedTable
                caption="Endpoints"
                page={asPage(records)}
                rowKey={(endpoint) => endpoint.id}
                onPage={() => undefined}
                empty="No webhook endpoints yet: create one to have the community's events POSTed to a receiver."
                columns={[
                  { header: 'URL', cell: (endpoint) => <code>{endpoint.url}</code> },
                  {
                    header: 'Event types',
                    cell: (endpoint) => (endpoint.events === null ? 'Every type' : endpoint.events.join(', ')),
                  },
                  {
                    header: 'State',
                    cell: (endpoint) =>
                      endpoint.disabled ? (
                        <span class="status status-failed">
                          Disabled{endpoint.disabled_reason ? `: ${endpoint.disabled_reason}` : ''}
                          {endpoint.disabled_at ? (
                            <>
                              {' '}
                              (<DateTime value={endpoint.disabled_at} />)
                            </>
                          ) : null}
                        </span>
                      ) : (
                        <span class="status status-delivered">Enabled</span>
                      ),
                  },
                  { header: 'Created', cell: (endpoint) => <DateTime value={endpoint.created_at} /> },
                  {
                    header: 'Actions',
                    cell: (endpoint) => (
                      <span class="row-actions">
                        <button
                          type="button"
                          aria-pressed={shown === endpoint.id}
                          onClick={() => setShown(shown === endpoint.id ? null : endpoint.id)}
                          aria-label={`Deliveries to ${endpoint.url}`}
                        >
                          Deliveries
                        </button>
                        <button
                          type="button"
                          disabled={busy || endpoint.disabled}
                          onClick={() => void test(endpoint)}
                          aria-label={`Send a test event to ${endpoint.url}`}
                        >
                          Send test
                        </button>
                        <button
                          type="button"
                          disabled={busy}
                          onClick={() => toggle(endpoint)}
                          aria-label={`${endpoint.disabled ? 'Enable' : 'Disable'} ${endpoint.url}`}
                        >
                          {endpoint.disabled ? 'Enable' : 'Disable'}
                        </button>
                        <button
                          type="button"
                          class="danger"
                          disabled={busy}
                          onClick={() => remove(endpoint)}
                          aria-label={`Delete ${endpoint.url}`}
                        >
                          Delete
                        </button>
                      </span>
                    ),
                  },
                ]}
              />
              {current ? <DeliveryLog key={current.id} endpoint={current} /> : null}
            </>
          );
        }}
      </Loaded>
      <ConfirmDialog
        open={asking !== null}
        title={asking?.title ?? ''}
        message={asking?.message ?? ''}
        confirmLabel={asking?.label ?? ''}
        onClose={confirm}
      />
    </>
  );
}
