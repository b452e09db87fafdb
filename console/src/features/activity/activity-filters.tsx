import { useState } from 'preact/hooks';
import { Field } from '../../shared/field.js';
import { fromLocalInput, toLocalInput } from '../../shared/local-input.js';
import { type ActionFilter, type ActivityFilters, type ActorType, actions, actorTypes, noFilters } from './activity.data.js';

const actorNames: Record<ActorType, string> = {
  api_key: 'API key',
  console: 'Console session',
  cli: 'Operator’s CLI',
  chat_sync: 'Slack sync',
  system: 'The server',
};

const localOf = (iso: string) => (iso ? toLocalInput(new Date(iso)) : '');

/** The log's filters, applied together on submit (typing does not query the API at each key). */
export function ActivityFiltersForm({ filters, onApply }: { filters: ActivityFilters; onApply: (filters: ActivityFilters) => void }) {
  const [draft, setDraft] = useState(filters);
  const [since, setSince] = useState(localOf(filters.since));
  const [until, setUntil] = useState(localOf(filters.until));
  const [error, setError] = useState('');
  const set = (change: Partial<ActivityFilters>) => setDraft({ ...draft, ...change });

  const submit = (e: Event) => {
    e.preventDefault();
    const from = fromLocalInput(since) ?? '';
    const to = fromLocalInput(until) ?? '';
    if (from && to && to <= from) {
      setError('“Until” must be after “Since”.');
      return;
    }
    setError('');
    onApply({ ...draft, since: from, until: to });
  };
  const clear = () => {
    setDraft(noFilters);
    setSince('');
    setUntil('');
    setError('');
    onApply(noFilters);
  };

  return (
    <form class="card filters" onSubmit={submit} aria-label="Filter the activity log" noValidate>
      <Field label="Action">
        {(p) => (
          <select {...p} value={draft.action} onChange={(e) => set({ action: e.currentTarget.value as ActionFilter | '' })}>
            <option value="">Any action</option>
            {actions.map((action) => (
              <option key={action} value={action}>
                {action.endsWith('.*') ? `${action} (every ${action.slice(0, -2).replace('_', ' ')} action)` : action}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Actor type">
        {(p) => (
          <select {...p} value={draft.actor_type} onChange={(e) => set({ actor_type: e.currentTarget.value as ActorType | '' })}>
            <option value="">Anyone</option>
            {actorTypes.map((type) => (
              <option key={type} value={type}>
                {actorNames[type]}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Actor id" help="An API key’s id.">
        {(p) => (
          <input {...p} type="text" value={draft.actor_id} maxLength={200} onInput={(e) => set({ actor_id: e.currentTarget.value })} />
        )}
      </Field>
      <Field label="Target type" help="member, calendar_event, api_key, …">
        {(p) => (
          <input
            {...p}
            type="text"
            value={draft.target_type}
            maxLength={100}
            onInput={(e) => set({ target_type: e.currentTarget.value })}
          />
        )}
      </Field>
      <Field label="Target id">
        {(p) => (
          <input {...p} type="text" value={draft.target_id} maxLength={200} onInput={(e) => set({ target_id: e.currentTarget.value })} />
        )}
      </Field>
      <Field label="Since" help="Your time zone.">
        {(p) => <input {...p} type="datetime-local" value={since} onInput={(e) => setSince(e.currentTarget.value)} />}
      </Field>
      <Field label="Until" error={error} help="Your time zone.">
        {(p) => <input {...p} type="datetime-local" value={until} onInput={(e) => setUntil(e.currentTarget.value)} />}
      </Field>
      <div class="actions">
        <button type="button" onClick={clear}>
          Clear filters
        </button>
        <button type="submit" class="primary">
          Apply filters
        </button>
      </div>
    </form>
  );
}
