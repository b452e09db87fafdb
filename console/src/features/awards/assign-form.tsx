import { useState } from 'preact/hooks';
import { useClient } from '../../session/session-context.js';
import { Field } from '../../shared/field.js';
import { Empty, ErrorState } from '../../shared/states.js';
import { type Problem, problemOf } from '../../shared/use-request.js';
import { type Award, assignAward, findMembers, type Member } from './awards.data.js';

/** Gives an award to a member found through the member list's search (name or email). */
export function AssignForm({ award, onDone }: { award: Award; onDone: (message: string) => void }) {
  const client = useClient();
  const [q, setQ] = useState('');
  const [found, setFound] = useState<{ members: Member[]; total: number } | null>(null);
  const [chosen, setChosen] = useState<Member | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);

  const search = async () => {
    setProblem(null);
    setError(q.trim() ? null : 'Type part of a name or an email.');
    if (!q.trim()) return;
    setChosen(null);
    try {
      const page = await findMembers(client, q.trim());
      setFound({ members: page.records, total: page.total_records });
    } catch (err) {
      setProblem(problemOf(err));
    }
  };
  const assign = async (e: Event) => {
    e.preventDefault();
    if (!chosen) {
      setError('Search, then choose a member.');
      return;
    }
    setBusy(true);
    setProblem(null);
    try {
      await assignAward(client, award.id, chosen);
      onDone(`Gave “${award.name}” to ${chosen.full_name}.`);
    } catch (err) {
      setProblem(problemOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card form" onSubmit={assign} noValidate aria-labelledby="assign-title">
      <h2 id="assign-title">Give “{award.name}” to a member</h2>
      <div class="inline-form">
        <Field label="Find a member (name or email)" error={error}>
          {(p) => (
            <input
              {...p}
              type="search"
              value={q}
              maxLength={200}
              onInput={(e) => setQ(e.currentTarget.value)}
              onKeyDown={(e) => {
                // Enter searches here rather than submitting the award.
                if (e.key === 'Enter') {
                  e.preventDefault();
                  void search();
                }
              }}
            />
          )}
        </Field>
        <button type="button" onClick={() => void search()}>
          Find
        </button>
      </div>
      {found === null ? null : found.members.length === 0 ? (
        <Empty>No active member matches “{q}”.</Empty>
      ) : (
        <fieldset class="choices">
          <legend>
            Member
            {found.total > found.members.length
              ? ` (the first ${found.members.length} of ${found.total}; search more precisely for others)`
              : ''}
          </legend>
          {found.members.map((member) => (
            <label key={member.id}>
              <input type="radio" name="recipient" checked={chosen?.id === member.id} onChange={() => setChosen(member)} />{' '}
              {member.full_name} <span class="muted">({member.email})</span>
            </label>
          ))}
        </fieldset>
      )}
      {problem ? <ErrorState problem={problem} /> : null}
      <div class="actions">
        <button type="button" onClick={() => onDone('')}>
          Cancel
        </button>
        <button type="submit" class="primary" disabled={busy}>
          Give award
        </button>
      </div>
    </form>
  );
}
