import { useState } from 'preact/hooks';
import { Field } from '../../shared/field.js';
import { ErrorState, Loaded } from '../../shared/states.js';
import { type Problem, problemOf, type RequestState } from '../../shared/use-request.js';
import type { NewKey, Permission } from './api-keys.data.js';

/** Key management is never implied: the box starts unticked, and a key holds it only when it is ticked. */
const managing: Permission = 'api_keys:write';

const expiries = [
  { value: '', label: 'Never' },
  { value: '24h', label: 'In 24 hours' },
  { value: '7d', label: 'In 7 days' },
  { value: '30d', label: 'In 30 days' },
  { value: '90d', label: 'In 90 days' },
  { value: '365d', label: 'In a year' },
] as const;

export function KeyForm({
  catalogue,
  onSave,
  onCancel,
}: {
  catalogue: RequestState<Permission[]>;
  onSave: (input: NewKey) => Promise<void>;
  onCancel: () => void;
}) {
  const [label, setLabel] = useState('');
  const [chosen, setChosen] = useState<ReadonlySet<Permission>>(new Set());
  const [expiry, setExpiry] = useState('90d');
  const [error, setError] = useState<string | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);

  const toggle = (permission: Permission, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(permission);
    else next.delete(permission);
    setChosen(next);
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    if (catalogue.status !== 'ok') return;
    setError(chosen.size > 0 ? null : 'Tick at least one permission.');
    if (chosen.size === 0) return;
    setBusy(true);
    setProblem(null);
    try {
      // In catalogue order, as the API lists them.
      const permissions = catalogue.data.filter((p) => chosen.has(p));
      await onSave({ label: label.trim(), permissions, ...(expiry ? { expires_in: expiry } : {}) });
    } catch (err) {
      setProblem(problemOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card form" onSubmit={submit} noValidate aria-labelledby="key-form-title">
      <h2 id="key-form-title">New API key</h2>
      <Field label="Label" help="What the key is for, so that it can be told apart later.">
        {(p) => <input {...p} type="text" value={label} maxLength={200} onInput={(e) => setLabel(e.currentTarget.value)} />}
      </Field>
      <Loaded state={catalogue} what="permissions">
        {(permissions) => (
          <fieldset class="permissions" aria-describedby={error ? 'permissions-error' : undefined}>
            <legend>Permissions</legend>
            <div class="checks">
              {permissions.map((permission) => (
                <label key={permission}>
                  <input type="checkbox" checked={chosen.has(permission)} onChange={(e) => toggle(permission, e.currentTarget.checked)} />{' '}
                  <code>{permission}</code>
                  {permission === managing ? <span class="muted"> (create, rotate and revoke keys)</span> : null}
                </label>
              ))}
            </div>
            <div class="row-actions">
              <button type="button" onClick={() => setChosen(new Set(permissions.filter((p) => p !== managing)))}>
                Tick all but key management
              </button>
              <button type="button" onClick={() => setChosen(new Set())}>
                Untick all
              </button>
            </div>
            {error ? (
              <p class="field-error" id="permissions-error">
                {error}
              </p>
            ) : null}
          </fieldset>
        )}
      </Loaded>
      <Field label="Expires">
        {(p) => (
          <select {...p} value={expiry} onChange={(e) => setExpiry(e.currentTarget.value)}>
            {expiries.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        )}
      </Field>
      {problem ? <ErrorState problem={problem} /> : null}
      <div class="actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" class="primary" disabled={busy || catalogue.status !== 'ok'}>
          Create key
        </button>
      </div>
    </form>
  );
}
