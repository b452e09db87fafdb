import { useState } from 'preact/hooks';
import { Field } from '../../shared/field.js';
import { ErrorState } from '../../shared/states.js';
import { type Problem, problemOf } from '../../shared/use-request.js';
import type { CalendarEvent, EventInput } from './events.data.js';

/** `datetime-local` works in the viewer's zone; the API takes instants. */
const toLocalInput = (iso: string | null | undefined): string => {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
};
const fromLocalInput = (value: string): string => new Date(value).toISOString();

/** Create (no `event`) or edit an event. */
export function EventForm({
  event,
  onSave,
  onCancel,
}: {
  event?: CalendarEvent;
  onSave: (input: EventInput) => Promise<void>;
  onCancel: () => void;
}) {
  const [title, setTitle] = useState(event?.title ?? '');
  const [start, setStart] = useState(toLocalInput(event?.start_date));
  const [end, setEnd] = useState(toLocalInput(event?.end_date));
  const [location, setLocation] = useState(event?.location ?? '');
  const [status, setStatus] = useState<'published' | 'needs_approval'>(
    event?.status === 'published' ? 'published' : event ? 'needs_approval' : 'published',
  );
  const [description, setDescription] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    const found: Record<string, string> = {};
    if (!title.trim()) found.title = 'Give the event a title.';
    if (!start) found.start = 'Give the date and time it starts.';
    if (start && end && new Date(end) < new Date(start)) found.end = 'The end cannot be before the start.';
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    setProblem(null);
    try {
      await onSave({
        title: title.trim(),
        start_date: fromLocalInput(start),
        end_date: end ? fromLocalInput(end) : null,
        location,
        status,
        ...(description ? { description_text: description } : {}),
      });
    } catch (error) {
      setProblem(problemOf(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card form" onSubmit={submit} noValidate aria-labelledby="event-form-title">
      <h2 id="event-form-title">{event ? 'Edit event' : 'New event'}</h2>
      <Field label="Title" error={errors.title}>
        {(p) => <input {...p} type="text" value={title} maxLength={1000} onInput={(e) => setTitle(e.currentTarget.value)} />}
      </Field>
      <div class="row">
        <Field label="Starts" error={errors.start}>
          {(p) => <input {...p} type="datetime-local" value={start} onInput={(e) => setStart(e.currentTarget.value)} />}
        </Field>
        <Field label="Ends (optional)" error={errors.end}>
          {(p) => <input {...p} type="datetime-local" value={end} onInput={(e) => setEnd(e.currentTarget.value)} />}
        </Field>
      </div>
      <Field label="Location">
        {(p) => <input {...p} type="text" value={location} maxLength={2048} onInput={(e) => setLocation(e.currentTarget.value)} />}
      </Field>
      <Field label="Status">
        {(p) => (
          <select {...p} value={status} onChange={(e) => setStatus(e.currentTarget.value as 'published' | 'needs_approval')}>
            <option value="published">Published</option>
            <option value="needs_approval">Needs approval</option>
          </select>
        )}
      </Field>
      <Field label={event ? 'Description (replaces the current one; leave empty to keep it)' : 'Description'}>
        {(p) => <textarea {...p} rows={4} maxLength={20000} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />}
      </Field>
      {problem ? <ErrorState problem={problem} /> : null}
      <div class="actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" class="primary" disabled={busy}>
          {event ? 'Save changes' : 'Create event'}
        </button>
      </div>
    </form>
  );
}
