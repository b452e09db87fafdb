import { useState } from 'preact/hooks';
import { useClient } from '../../session/session-context.js';
import { DateTime } from '../../shared/date-time.js';
import { PageTitle } from '../../shared/layout.js';
import { PagedTable } from '../../shared/paged-table.js';
import { Loaded } from '../../shared/states.js';
import { useRequest } from '../../shared/use-request.js';
import { AssignForm } from './assign-form.js';
import { AwardForm } from './award-form.js';
import { type Award, createAward, listAwards } from './awards.data.js';

type Panel = { kind: 'none' } | { kind: 'create' } | { kind: 'assign'; award: Award };

export function AwardsPage() {
  const client = useClient();
  const [page, setPage] = useState(0);
  const [panel, setPanel] = useState<Panel>({ kind: 'none' });
  const [notice, setNotice] = useState('');
  const list = useRequest(() => listAwards(client, page), [page]);

  const done = (message: string) => {
    setPanel({ kind: 'none' });
    setNotice(message);
    list.reload();
  };

  return (
    <>
      <PageTitle name="Awards">
        <button type="button" class="primary" onClick={() => setPanel({ kind: 'create' })}>
          New award
        </button>
      </PageTitle>
      <output class="notice">{notice}</output>
      {panel.kind === 'create' ? (
        <AwardForm
          onCancel={() => setPanel({ kind: 'none' })}
          onSave={async (input) => {
            await createAward(client, input);
            done(`Created “${input.name}”.`);
          }}
        />
      ) : null}
      {panel.kind === 'assign' ? <AssignForm key={panel.award.id} award={panel.award} onDone={done} /> : null}
      <Loaded state={list} what="awards">
        {(awards) => (
          <PagedTable
            caption="Awards"
            page={awards}
            rowKey={(award) => award.id}
            onPage={setPage}
            empty="The community has no awards yet."
            columns={[
              { header: 'Award', cell: (award) => award.name },
              { header: 'Emoji', cell: (award) => (award.emoji ? <code>{award.emoji}</code> : <span class="muted">—</span>) },
              { header: 'Description', cell: (award) => award.description ?? '' },
              { header: 'Holders', cell: (award) => String(award.assigned_count) },
              { header: 'Created', cell: (award) => <DateTime value={award.created_at} /> },
              {
                header: 'Actions',
                cell: (award) => (
                  <button type="button" onClick={() => setPanel({ kind: 'assign', award })} aria-label={`Give ${award.name} to a member`}>
                    Give to a member
                  </button>
                ),
              },
            ]}
          />
        )}
      </Loaded>
    </>
  );
}
