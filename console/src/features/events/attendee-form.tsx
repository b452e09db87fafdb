import { useState } from 'preact/hooks';
import { Field } from '../../shared/field.js';
import { ErrorState } from '../../shared/states.js';
import { type Problem, problemOf } from '../../shared/use-request.js';
import type { CalendarEvent } from './events.data.js';

/** Adds an attendee (by chat user id) to an event, or updates their personal join link. */
export function AttendeeForm({
  event,
  onSave,
  onDone,
}: {
  event: CalendarEvent;
  onSave: (chatUserId: string, joinLink: string) => Promise<void>;
  onDone: () => void;
}) {
  const [user, setUser] = useState('');
  const [link, setLink] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [saved, setSaved] = useState('');
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(user.trim() ? null : 'Give the attendee’s chat user id.');
    if (!user.trim()) return;
    setProblem(null);
    try {
      await onSave(user.trim(), link.trim());
      setSaved(`${user.trim()} is an attendee.`);
      setUser('');
      setLink('');
    } catch (err) {
      setProblem(problemOf(err));
    }
  };
  return (
    <form class="card form" onSubmit={submit} noValidate aria-labelledby="attendee-title">
      <h2 id="attendee-title">Attendees of {event.title}</h2>
      <p>
        {event.attendees_count ?? 0} attendee{event.attendees_count === 1 ? '' : 's'}.
      </p>
      <div class="row">
        <Field label="Chat user id" error={error}>
          {(p) => <input {...p} type="text" value={user} maxLength={64} onInput={(e) => setUser(e.currentTarget.value)} />}
        </Field>
        <Field label="Personal join link (optional)">
          {(p) => <input {...p} type="url" value={link} maxLength={2048} onInput={(e) => setLink(e.currentTarget.value)} />}
        </Field>
      </div>
      {problem ? <ErrorState problem={problem} /> : null}
      <output class="saved">{saved}</output>
      <div class="actions">
        <button type="button" onClick={onDone}>
          Close
        </button>
        <button type="submit" class="primary">
          Add attendee
        </button>
      </div>
    </form>
  );
}
