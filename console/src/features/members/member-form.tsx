import { useState } from 'preact/hooks';
import { Field } from '../../shared/field.js';
import { ErrorState } from '../../shared/states.js';
import { type Problem, problemOf } from '../../shared/use-request.js';

type FieldName = 'email' | 'full_name';

/** A `validation_failed` message names its field (`body.email: ...`): shown under that field, the rest as an error. */
function fieldOf(problem: Problem): FieldName | null {
  const match = /^body\.(email|full_name)\b/.exec(problem.message);
  return problem.code === 'validation_failed' && match ? (match[1] as FieldName) : null;
}

/** Adds a member (the API updates, and reactivates, the member who already holds the email). */
export function MemberForm({
  onSave,
  onCancel,
}: {
  onSave: (input: { email: string; full_name: string }) => Promise<void>;
  onCancel: () => void;
}) {
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [errors, setErrors] = useState<Partial<Record<FieldName, string>>>({});
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    const found: Partial<Record<FieldName, string>> = {};
    if (!email.trim()) found.email = 'Give the member’s email address.';
    if (!name.trim()) found.full_name = 'Give the member’s full name.';
    setErrors(found);
    setProblem(null);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    try {
      await onSave({ email: email.trim(), full_name: name.trim() });
    } catch (error) {
      const got = problemOf(error);
      const field = fieldOf(got);
      if (field) setErrors({ [field]: got.message.replace(/^body\.\w+:\s*/, '') });
      else setProblem(got);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card form" onSubmit={submit} noValidate aria-labelledby="member-form-title">
      <h2 id="member-form-title">Add a member</h2>
      <div class="row">
        <Field label="Email" error={errors.email}>
          {(p) => (
            <input {...p} type="email" autoComplete="off" value={email} maxLength={254} onInput={(e) => setEmail(e.currentTarget.value)} />
          )}
        </Field>
        <Field label="Full name" error={errors.full_name} help="First and last name, separated by a space.">
          {(p) => (
            <input {...p} type="text" autoComplete="off" value={name} maxLength={200} onInput={(e) => setName(e.currentTarget.value)} />
          )}
        </Field>
      </div>
      {problem ? <ErrorState problem={problem} /> : null}
      <div class="actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" class="primary" disabled={busy}>
          Add member
        </button>
      </div>
    </form>
  );
}
