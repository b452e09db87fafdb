import { useState } from 'preact/hooks';
import { Field } from '../../shared/field.js';
import { ErrorState } from '../../shared/states.js';
import { type Problem, problemOf } from '../../shared/use-request.js';
import type { NewAward } from './awards.data.js';

type FieldName = keyof NewAward;

export function AwardForm({ onSave, onCancel }: { onSave: (input: NewAward) => Promise<void>; onCancel: () => void }) {
  const [input, setInput] = useState<NewAward>({ name: '', description: '', emoji: '' });
  const [errors, setErrors] = useState<Partial<Record<FieldName, string>>>({});
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (field: FieldName) => (e: { currentTarget: { value: string } }) => setInput({ ...input, [field]: e.currentTarget.value });

  const submit = async (e: Event) => {
    e.preventDefault();
    setProblem(null);
    setErrors(input.name.trim() ? {} : { name: 'Give the award a name.' });
    if (!input.name.trim()) return;
    setBusy(true);
    try {
      await onSave({ name: input.name.trim(), description: input.description.trim(), emoji: input.emoji.trim() });
    } catch (error) {
      const got = problemOf(error);
      // A refused field is named in the message (`body.name: ...`): shown under it.
      const field = /^body\.(name|description|emoji)\b/.exec(got.message)?.[1] as FieldName | undefined;
      if (got.code === 'validation_failed' && field) setErrors({ [field]: got.message.replace(/^body\.\w+:\s*/, '') });
      else setProblem(got);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card form" onSubmit={submit} noValidate aria-labelledby="award-form-title">
      <h2 id="award-form-title">New award</h2>
      <div class="row">
        <Field label="Name" error={errors.name} help="Unique in the community.">
          {(p) => <input {...p} type="text" value={input.name} maxLength={100} onInput={set('name')} />}
        </Field>
        <Field label="Emoji (optional)" error={errors.emoji} help="A Slack shortcode, such as :trophy:.">
          {(p) => <input {...p} type="text" value={input.emoji} maxLength={66} onInput={set('emoji')} />}
        </Field>
      </div>
      <Field label="Description (optional)" error={errors.description}>
        {(p) => <textarea {...p} rows={3} value={input.description} maxLength={500} onInput={set('description')} />}
      </Field>
      {problem ? <ErrorState problem={problem} /> : null}
      <div class="actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" class="primary" disabled={busy}>
          Create award
        </button>
      </div>
    </form>
  );
}
