import { useState } from 'preact/hooks';
import { useClient } from '../../session/session-context.js';
import { DateTime } from '../../shared/date-time.js';
import { PageTitle } from '../../shared/layout.js';
import { PagedTable } from '../../shared/paged-table.js';
import { ErrorState, Loaded } from '../../shared/states.js';
import { type Problem, problemOf, useRequest } from '../../shared/use-request.js';
import { type Activity, type ActivityFilters, type ExportFormat, exportActivities, listActivities, noFilters } from './activity.data.js';
import { ActivityFiltersForm } from './activity-filters.js';

const shown = (value: unknown): string => (typeof value === 'string' ? `“${value}”` : (JSON.stringify(value) ?? 'nothing'));

/** An action, breakable after its dot only (never inside a word). */
function ActionName({ action }: { action: string }) {
  const dot = action.indexOf('.');
  return (
    <code class="action-name">
      {action.slice(0, dot + 1)}
      <wbr />
      {action.slice(dot + 1)}
    </code>
  );
}

function Details({ record }: { record: Activity }) {
  const changes = record.changes ? Object.entries(record.changes) : [];
  if (!record.context && changes.length === 0 && !record.metadata) return <span class="muted">—</span>;
  return (
    <details class="record-details">
      <summary>
        {changes.length > 0 ? `${changes.length} ${changes.length === 1 ? 'change' : 'changes'}` : 'Details'}
        <span class="visually-hidden"> of {record.action}</span>
      </summary>
      {changes.length > 0 ? (
        <ul class="changes">
          {changes.map(([field, pair]) => (
            <li key={field}>
              <code>{field}</code>: {shown(pair[0])} → {shown(pair[1])}
            </li>
          ))}
        </ul>
      ) : null}
      {record.context ? (
        <p>
          Request <code>{record.context.request_id}</code>
          {record.context.ip ? <> from {record.context.ip}</> : null}
          {record.context.user_agent ? <> ({record.context.user_agent})</> : null}
        </p>
      ) : null}
      {record.metadata ? <pre>{JSON.stringify(record.metadata, null, 2)}</pre> : null}
    </details>
  );
}

/** Saves a downloaded file (read with the session's key, which a plain link cannot send; the CSP allows a blob of our origin). */
function download(file: Blob, name: string): void {
  const url = URL.createObjectURL(file);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function ActivityPage() {
  const client = useClient();
  const [filters, setFilters] = useState<ActivityFilters>(noFilters);
  const [page, setPage] = useState(0);
  const log = useRequest(() => listActivities(client, filters, page), [filters, page]);
  const [exporting, setExporting] = useState('');
  const [problem, setProblem] = useState<Problem | null>(null);

  const exportAs = async (format: ExportFormat) => {
    setProblem(null);
    const kind = format === 'csv' ? 'CSV' : 'JSON Lines';
    setExporting(`Exporting (${kind})…`);
    try {
      const file = await exportActivities(client, filters, format);
      const name = `activity-${new Date().toISOString().replace(/[:.]/g, '-')}.${format}`;
      download(file, name);
      setExporting(`Exported ${name} (${kind}).`);
    } catch (error) {
      setExporting('');
      setProblem(problemOf(error));
    }
  };

  return (
    <>
      <PageTitle name="Activity">
        <span class="row-actions">
          <button type="button" onClick={() => void exportAs('jsonl')}>
            Export JSON Lines
          </button>
          <button type="button" onClick={() => void exportAs('csv')}>
            Export CSV
          </button>
        </span>
      </PageTitle>
      <output class="notice">{exporting}</output>
      {problem ? <ErrorState problem={problem} /> : null}
      <ActivityFiltersForm
        filters={filters}
        onApply={(next) => {
          setFilters(next);
          setPage(0);
        }}
      />
      <Loaded state={log} what="the activity log">
        {(records) => (
          <PagedTable
            caption="Activity, newest first"
            page={records}
            rowKey={(record) => record.id}
            onPage={setPage}
            empty={filters === noFilters ? 'Nothing has been recorded yet.' : 'No records match these filters.'}
            columns={[
              { header: 'Time', cell: (r) => <DateTime value={r.occurred_at} /> },
              {
                header: 'Actor',
                cell: (r) => (
                  <>
                    <span>
                      {r.actor.label ?? r.actor.type} <span class="muted">({r.actor.type})</span>
                    </span>
                    {r.actor.id ? (
                      <>
                        <br />
                        <code class="muted">{r.actor.id}</code>
                      </>
                    ) : null}
                  </>
                ),
              },
              { header: 'Action', cell: (r) => <ActionName action={r.action} /> },
              {
                header: 'Target',
                cell: (r) => (
                  <>
                    {r.target.name !== null ? <span>{r.target.name}</span> : <span class="muted">{r.target.type}</span>}{' '}
                    {r.target.name ? <span class="muted">({r.target.type})</span> : null}
                    {r.target.id ? (
                      <>
                        <br />
                        <code class="muted">{r.target.id}</code>
                      </>
                    ) : null}
                  </>
                ),
              },
              { header: 'Details', cell: (r) => <Details record={r} /> },
            ]}
          />
        )}
      </Loaded>
    </>
  );
}
