import { useState } from 'preact/hooks';
import { useClient } from '../../session/session-context.js';
import { ConfirmDialog } from '../../shared/confirm-dialog.js';
import { DateTime } from '../../shared/date-time.js';
import { Field } from '../../shared/field.js';
import { PageTitle } from '../../shared/layout.js';
import { PagedTable } from '../../shared/paged-table.js';
import { ErrorState, Loaded } from '../../shared/states.js';
import { type Problem, problemOf, useRequest } from '../../shared/use-request.js';
import { GroupForm } from './group-form.js';
import { MemberForm } from './member-form.js';
import {
  addMember,
  deactivateMember,
  listMembers,
  type Member,
  type MemberFilters,
  type MemberSort,
  type MemberStatus,
} from './members.data.js';

type Panel = { kind: 'none' } | { kind: 'add' } | { kind: 'group'; member: Member };

export function MembersPage() {
  const client = useClient();
  const [filters, setFilters] = useState<MemberFilters>({ q: '', status: '', sort: 'name', page: 0 });
  const [typed, setTyped] = useState('');
  const [panel, setPanel] = useState<Panel>({ kind: 'none' });
  const [deactivating, setDeactivating] = useState<Member | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [notice, setNotice] = useState('');
  const list = useRequest(() => listMembers(client, filters), [filters]);

  const done = (message: string) => {
    setPanel({ kind: 'none' });
    setNotice(message);
    list.reload();
  };
  const confirmDeactivate = async (confirmed: boolean) => {
    const member = deactivating;
    setDeactivating(null);
    if (!confirmed || !member) return;
    setProblem(null);
    try {
      await deactivateMember(client, member.id);
      done(`Deactivated ${member.full_name}.`);
    } catch (error) {
      setProblem(problemOf(error));
    }
  };

  return (
    <>
      <PageTitle name="Members">
        <button type="button" class="primary" onClick={() => setPanel({ kind: 'add' })}>
          Add member
        </button>
      </PageTitle>
      <output class="notice">{notice}</output>
      {panel.kind === 'add' ? (
        <MemberForm
          onCancel={() => setPanel({ kind: 'none' })}
          onSave={async (input) => {
            const said = await addMember(client, input);
            done(`${said} (${input.full_name}, ${input.email})`);
          }}
        />
      ) : null}
      {panel.kind === 'group' ? <GroupForm key={panel.member.id} member={panel.member} onDone={done} /> : null}
      {problem ? <ErrorState problem={problem} /> : null}
      <form
        class="filters"
        aria-label="Find members"
        onSubmit={(e) => {
          e.preventDefault();
          setFilters({ ...filters, q: typed, page: 0 });
        }}
      >
        <Field label="Name or email">
          {(p) => <input {...p} type="search" value={typed} maxLength={200} onInput={(e) => setTyped(e.currentTarget.value)} />}
        </Field>
        <button type="submit">Search</button>
        <Field label="Status">
          {(p) => (
            <select
              {...p}
              value={filters.status}
              onChange={(e) => setFilters({ ...filters, status: e.currentTarget.value as MemberStatus, page: 0 })}
            >
              <option value="">All</option>
              <option value="active">Active</option>
              <option value="deactivated">Deactivated</option>
            </select>
          )}
        </Field>
        <Field label="Sort by">
          {(p) => (
            <select
              {...p}
              value={filters.sort}
              onChange={(e) => setFilters({ ...filters, sort: e.currentTarget.value as MemberSort, page: 0 })}
            >
              <option value="name">Name (A to Z)</option>
              <option value="-name">Name (Z to A)</option>
              <option value="-joined_at">Joined (newest first)</option>
              <option value="joined_at">Joined (oldest first)</option>
            </select>
          )}
        </Field>
      </form>
      <Loaded state={list} what="members">
        {(page) => (
          <PagedTable
            caption="Members"
            page={page}
            rowKey={(member) => member.id}
            onPage={(n) => setFilters({ ...filters, page: n })}
            empty={filters.q.trim() || filters.status ? 'No member matches this search.' : 'The community has no members yet.'}
            columns={[
              { header: 'Name', cell: (member) => member.full_name },
              { header: 'Email', cell: (member) => member.email },
              { header: 'Joined', cell: (member) => <DateTime value={member.joined_at} /> },
              { header: 'Status', cell: (member) => (member.is_deactivated ? 'Deactivated' : 'Active') },
              { header: 'Chat', cell: (member) => (member.chat_profile_id ? 'Linked' : 'Not linked') },
              {
                header: 'Actions',
                cell: (member) => (
                  <span class="row-actions">
                    <button
                      type="button"
                      onClick={() => setPanel({ kind: 'group', member })}
                      aria-label={`Add ${member.full_name} to a group`}
                    >
                      Add to group
                    </button>
                    {member.is_deactivated ? null : member.chat_profile_id ? (
                      <span class="muted">Deactivate in chat</span>
                    ) : (
                      <button
                        type="button"
                        class="danger"
                        onClick={() => setDeactivating(member)}
                        aria-label={`Deactivate ${member.full_name}`}
                      >
                        Deactivate
                      </button>
                    )}
                  </span>
                ),
              },
            ]}
          />
        )}
      </Loaded>
      <ConfirmDialog
        open={deactivating !== null}
        title="Deactivate this member?"
        message={
          deactivating
            ? `${deactivating.full_name} (${deactivating.email}) will be deactivated. Adding the same email again reactivates them.`
            : ''
        }
        confirmLabel="Deactivate member"
        onClose={(confirmed) => void confirmDeactivate(confirmed)}
      />
    </>
  );
}
