import { useState } from 'preact/hooks';
import { useClient } from '../../session/session-context.js';
import { ConfirmDialog } from '../../shared/confirm-dialog.js';
import { DateTime } from '../../shared/date-time.js';
import { Field } from '../../shared/field.js';
import { PageTitle } from '../../shared/layout.js';
import { PagedTable } from '../../shared/paged-table.js';
import { ErrorState, Loaded } from '../../shared/states.js';
import { type Problem, problemOf, useRequest } from '../../shared/use-request.js';
import { AttendeeForm } from './attendee-form.js';
import { EventForm } from './event-form.js';
import {
  type CalendarEvent,
  createEvent,
  deleteEvent,
  type EventFilters,
  type EventStatus,
  listEvents,
  setAttendee,
  type TimeFilter,
  updateEvent,
} from './events.data.js';
import { MonthView } from './month-view.js';

type Panel = { kind: 'none' } | { kind: 'create' } | { kind: 'edit'; event: CalendarEvent } | { kind: 'attendees'; event: CalendarEvent };

export function EventsPage() {
  const client = useClient();
  const [filters, setFilters] = useState<EventFilters>({ time: 'upcoming', status: 'published', page: 0 });
  const [view, setView] = useState<'list' | 'month'>('list');
  const [panel, setPanel] = useState<Panel>({ kind: 'none' });
  const [deleting, setDeleting] = useState<CalendarEvent | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [notice, setNotice] = useState('');
  const list = useRequest(() => listEvents(client, filters), [filters]);

  const done = (message: string) => {
    setPanel({ kind: 'none' });
    setNotice(message);
    list.reload();
  };
  const confirmDelete = async (confirmed: boolean) => {
    const event = deleting;
    setDeleting(null);
    if (!confirmed || !event) return;
    setProblem(null);
    try {
      await deleteEvent(client, event.id);
      done(`Deleted “${event.title}”.`);
    } catch (error) {
      setProblem(problemOf(error));
    }
  };

  return (
    <>
      <PageTitle name="Events">
        <button type="button" class="primary" onClick={() => setPanel({ kind: 'create' })}>
          New event
        </button>
      </PageTitle>
      <output class="notice">{notice}</output>
      {panel.kind === 'create' ? (
        <EventForm
          onCancel={() => setPanel({ kind: 'none' })}
          onSave={async (input) => {
            await createEvent(client, input);
            done(`Created “${input.title}”.`);
          }}
        />
      ) : null}
      {panel.kind === 'edit' ? (
        <EventForm
          key={panel.event.id}
          event={panel.event}
          onCancel={() => setPanel({ kind: 'none' })}
          onSave={async (input) => {
            await updateEvent(client, panel.event.id, input);
            done(`Saved “${input.title}”.`);
          }}
        />
      ) : null}
      {panel.kind === 'attendees' ? (
        <AttendeeForm
          key={panel.event.id}
          event={panel.event}
          onSave={(user, link) => setAttendee(client, panel.event.id, user, link)}
          onDone={() => done('')}
        />
      ) : null}
      {problem ? <ErrorState problem={problem} /> : null}
      <form class="filters" aria-label="Filter events" onSubmit={(e) => e.preventDefault()}>
        <Field label="When">
          {(p) => (
            <select
              {...p}
              value={filters.time}
              onChange={(e) => setFilters({ ...filters, time: e.currentTarget.value as TimeFilter, page: 0 })}
            >
              <option value="upcoming">Upcoming</option>
              <option value="past">Past</option>
              <option value="all">All</option>
            </select>
          )}
        </Field>
        <Field label="Status">
          {(p) => (
            <select
              {...p}
              value={filters.status}
              onChange={(e) => setFilters({ ...filters, status: e.currentTarget.value as EventStatus, page: 0 })}
            >
              <option value="published">Published</option>
              <option value="needs_approval">Needs approval</option>
              <option value="draft">Draft</option>
            </select>
          )}
        </Field>
        <fieldset class="view-switch">
          <legend>View</legend>
          <label>
            <input type="radio" name="view" checked={view === 'list'} onChange={() => setView('list')} /> List
          </label>
          <label>
            <input type="radio" name="view" checked={view === 'month'} onChange={() => setView('month')} /> Month
          </label>
        </fieldset>
      </form>
      {view === 'month' ? (
        <MonthView status={filters.status} />
      ) : (
        <Loaded state={list} what="events">
          {(page) => (
            <PagedTable
              caption="Events"
              page={page}
              rowKey={(event) => event.id}
              onPage={(n) => setFilters({ ...filters, page: n })}
              empty="No events match these filters."
              columns={[
                { header: 'Title', cell: (event) => event.title },
                { header: 'Starts', cell: (event) => <DateTime value={event.start_date} /> },
                { header: 'Status', cell: (event) => event.status.replace('_', ' ') },
                { header: 'Attendees', cell: (event) => String(event.attendees_count ?? 0) },
                {
                  header: 'Actions',
                  cell: (event) => (
                    <span class="row-actions">
                      <button type="button" onClick={() => setPanel({ kind: 'edit', event })} aria-label={`Edit ${event.title}`}>
                        Edit
                      </button>
                      <button
                        type="button"
                        onClick={() => setPanel({ kind: 'attendees', event })}
                        aria-label={`Attendees of ${event.title}`}
                      >
                        Attendees
                      </button>
                      <button type="button" class="danger" onClick={() => setDeleting(event)} aria-label={`Delete ${event.title}`}>
                        Delete
                      </button>
                    </span>
                  ),
                },
              ]}
            />
          )}
        </Loaded>
      )}
      <ConfirmDialog
        open={deleting !== null}
        title="Delete this event?"
        message={deleting ? `“${deleting.title}” will be deleted, with its attendees. This cannot be undone.` : ''}
        confirmLabel="Delete event"
        onClose={(confirmed) => void confirmDelete(confirmed)}
      />
    </>
  );
}
