import { useState } from 'preact/hooks';
import { Field } from '../../shared/field.js';
import { ErrorState, Loaded } from '../../shared/states.js';
import { type Problem, problemOf, type RequestState } from '../../shared/use-request.js';
import type { EventType, EventTypeInfo } from './webhooks.data.js';

/** A new endpoint: its URL and the event types it receives (every type, or the ones ticked in the closed list). */
export function EndpointForm({
  eventTypes,
  onSave,
  onCancel,
}: {
  eventTypes: RequestState<EventTypeInfo[]>;
  onSave: (url: string, events: EventType[] | null) => Promise<void>;
  onCancel: () => void;
}) {
  const [url, setUrl] = useState('');
  const [every, setEvery] = useState(false);
  const [chosen, setChosen] = useState<EventType[]>([]);
  const [errors, setErrors] = useState<{ url?: string; events?: string }>({});
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);

  const toggle = (type: EventType, on: boolean) => setChosen(on ? [...chosen, type] : chosen.filter((t) => t !== type));
  const submit = async (e: Event) => {
    e.preventDefault();
    const found: typeof errors = {};
    if (!/^https?:\/\/\S+$/i.test(url.trim())) found.url = 'Give the receiver’s full URL (https://…).';
    if (!every && chosen.length === 0) found.events = 'Tick at least one event type, or choose every type.';
    setErrors(found);
    if (found.url || found.events) return;
    setBusy(true);
    setProblem(null);
    try {
      await onSave(url.trim(), every ? null : chosen);
    } catch (error) {
      setProblem(problemOf(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card form" onSubmit={submit} noValidate aria-labelledby="endpoint-form-title">
      <h2 id="endpoint-form-title">New endpoint</h2>
      <Field label="URL" error={errors.url} help="Where deliveries are POSTed: https, on a public address; redirects are not followed.">
        {(p) => <input {...p} type="url" inputMode="url" value={url} maxLength={2048} onInput={(e) => setUrl(e.currentTarget.value)} />}
      </Field>
      <fieldset class="choices" aria-describedby={errors.events ? 'endpoint-events-error' : undefined}>
        <legend>Event types</legend>
        <label class="choice">
          <input type="checkbox" checked={every} onChange={(e) => setEvery(e.currentTarget.checked)} />
          <span>
            Every event type <span class="muted">(including types added later)</span>
          </span>
        </label>
        <Loaded state={eventTypes} what="event types">
          {(types) => (
            <>
              {types.map((info) => (
                <label class="choice" key={info.type}>
                  <input
                    type="checkbox"
                    name="events"
                    value={info.type}
                    disabled={every}
                    checked={every || chosen.includes(info.type)}
                    onChange={(e) => toggle(info.type, e.currentTarget.checked)}
                  />
                  <span>
                    <code>{info.type}</code> <span class="muted">{info.description}</span>
                  </span>
                </label>
              ))}
            </>
          )}
        </Loaded>
        {errors.events ? (
          <p class="field-error" id="endpoint-events-error">
            {errors.events}
          </p>
        ) : null}
      </fieldset>
      {problem ? <ErrorState problem={problem} /> : null}
      <div class="actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" class="primary" disabled={busy}>
          Create endpoint
        </button>
      </div>
    </form>
  );
}
