import { useState } from 'preact/hooks';
import { useClient } from '../../session/session-context.js';
import { Field } from '../../shared/field.js';
import { Empty, ErrorState, Loaded } from '../../shared/states.js';
import { type Problem, problemOf, useRequest } from '../../shared/use-request.js';
import { addToGroup, listGroups, type Member } from './members.data.js';

/**
 * Adds a member to a group. Groups hold chat users: the API takes the member's chat profile
 * (`chat_profile_id`), so a member not linked to the chat workspace cannot be added, and the form says so.
 */
export function GroupForm({ member, onDone }: { member: Member; onDone: (message: string) => void }) {
  const client = useClient();
  const groups = useRequest(() => listGroups(client), []);
  const [groupId, setGroupId] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  const profileId = member.chat_profile_id;

  const submit = async (e: Event) => {
    e.preventDefault();
    if (!profileId) return;
    setError(groupId ? null : 'Choose a group.');
    if (!groupId) return;
    const group = groups.status === 'ok' ? groups.data.find((g) => g.id === groupId) : undefined;
    setBusy(true);
    setProblem(null);
    try {
      const already = await addToGroup(client, groupId, profileId);
      onDone(already ? `${member.full_name}: ${already}` : `Added ${member.full_name} to ${group?.name ?? 'the group'}.`);
    } catch (err) {
      setProblem(problemOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card form" onSubmit={submit} noValidate aria-labelledby="group-form-title">
      <h2 id="group-form-title">Add {member.full_name} to a group</h2>
      {profileId ? (
        <Loaded state={groups} what="groups">
          {(list) =>
            list.length === 0 ? (
              <Empty>The community has no groups yet (groups come from the chat workspace).</Empty>
            ) : (
              <Field label="Group" error={error}>
                {(p) => (
                  <select {...p} value={groupId} onChange={(e) => setGroupId(e.currentTarget.value)}>
                    <option value="">Choose a group…</option>
                    {list.map((group) => (
                      <option key={group.id} value={group.id}>
                        {group.name} ({group.member_count} member{group.member_count === 1 ? '' : 's'})
                      </option>
                    ))}
                  </select>
                )}
              </Field>
            )
          }
        </Loaded>
      ) : (
        <p class="notice-box">
          {member.full_name} has no chat account linked yet, so cannot be added to a group: groups hold the chat workspace’s users. Invite
          them to the chat workspace; once they join, they can be added here.
        </p>
      )}
      {problem ? <ErrorState problem={problem} /> : null}
      <div class="actions">
        <button type="button" onClick={() => onDone('')}>
          {profileId ? 'Cancel' : 'Close'}
        </button>
        {profileId ? (
          <button type="submit" class="primary" disabled={busy}>
            Add to group
          </button>
        ) : null}
      </div>
    </form>
  );
}
