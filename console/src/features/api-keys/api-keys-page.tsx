import { useState } from 'preact/hooks';
import { useSession } from '../../session/session-context.js';
import { ConfirmDialog } from '../../shared/confirm-dialog.js';
import { DateTime } from '../../shared/date-time.js';
import { PageTitle } from '../../shared/layout.js';
import { PagedTable } from '../../shared/paged-table.js';
import { ErrorState, Loaded } from '../../shared/states.js';
import { type Problem, problemOf, useRequest } from '../../shared/use-request.js';
import { type ApiKey, createKey, grantable, listKeys, revokeKey, rotateKey } from './api-keys.data.js';
import { KeyForm } from './key-form.js';
import { SecretOnce } from './secret-once.js';

type Asking = { action: 'rotate' | 'revoke'; key: ApiKey } | null;
type Shown = { title: string; secret: string; note?: string } | null;

const nameOf = (key: ApiKey) => key.label || 'Unlabelled key';

const permissionsOf = (key: ApiKey) =>
  key.all_permissions ? `all${key.permissions.includes('api_keys:write') ? ' and api_keys:write' : ''}` : key.permissions.join(', ');

export function ApiKeysPage() {
  const { client, session } = useSession();
  const [page, setPage] = useState(0);
  const [creating, setCreating] = useState(false);
  const [asking, setAsking] = useState<Asking>(null);
  const [shown, setShown] = useState<Shown>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [notice, setNotice] = useState('');
  const list = useRequest(() => listKeys(client, page), [page]);
  const catalogue = useRequest(() => grantable(client), []);

  const answer = async (confirmed: boolean) => {
    const asked = asking;
    setAsking(null);
    if (!confirmed || !asked) return;
    setProblem(null);
    setNotice('');
    try {
      if (asked.action === 'revoke') {
        await revokeKey(client, asked.key.id);
        setNotice(`Revoked “${nameOf(asked.key)}”: it is refused from now on.`);
      } else {
        const rotated = await rotateKey(client, asked.key.id);
        setShown({
          title: `New secret of “${nameOf(asked.key)}”`,
          secret: rotated.key,
          note: `The old secret keeps working until ${new Date(rotated.previous_valid_until).toLocaleString()}.`,
        });
      }
      list.reload();
    } catch (error) {
      setProblem(problemOf(error));
    }
  };

  return (
    <>
      <PageTitle name="API keys">
        <button
          type="button"
          class="primary"
          onClick={() => {
            setCreating(true);
            setShown(null);
          }}
        >
          New key
        </button>
      </PageTitle>
      <output class="notice">{notice}</output>
      {shown ? <SecretOnce {...shown} onDone={() => setShown(null)} /> : null}
      {creating ? (
        <KeyForm
          catalogue={catalogue}
          onCancel={() => setCreating(false)}
          onSave={async (input) => {
            const created = await createKey(client, input);
            setCreating(false);
            setNotice('');
            setShown({ title: `Created “${input.label || 'Unlabelled key'}”`, secret: created.key });
            list.reload();
          }}
        />
      ) : null}
      {problem ? <ErrorState problem={problem} /> : null}
      <p class="muted">Revoked keys are not listed; expired ones are, until revoked.</p>
      <Loaded state={list} what="API keys">
        {(keys) => (
          <PagedTable
            caption="Live keys"
            page={keys}
            rowKey={(key) => key.id}
            onPage={setPage}
            empty="The community has no live API keys."
            columns={[
              { header: 'Label', cell: (key) => (key.label ? key.label : <span class="muted">Unlabelled key</span>) },
              { header: 'Kind', cell: (key) => (key.kind === 'console' ? 'Console session' : 'API key') },
              { header: 'Permissions', cell: (key) => <span class="permission-list">{permissionsOf(key)}</span> },
              { header: 'Created', cell: (key) => <DateTime value={key.created_at} /> },
              { header: 'Expires', cell: (key) => (key.expires_at ? <DateTime value={key.expires_at} /> : 'Never') },
              { header: 'Last used', cell: (key) => (key.last_used_at ? <DateTime value={key.last_used_at} /> : 'Never') },
              {
                header: 'Actions',
                cell: (key) =>
                  key.id === session.key_id ? (
                    <span class="muted">This session (sign out to end it)</span>
                  ) : (
                    <span class="row-actions">
                      <button type="button" onClick={() => setAsking({ action: 'rotate', key })} aria-label={`Rotate ${nameOf(key)}`}>
                        Rotate
                      </button>
                      <button
                        type="button"
                        class="danger"
                        onClick={() => setAsking({ action: 'revoke', key })}
                        aria-label={`Revoke ${nameOf(key)}`}
                      >
                        Revoke
                      </button>
                    </span>
                  ),
              },
            ]}
          />
        )}
      </Loaded>
      <ConfirmDialog
        open={asking !== null}
        title={asking?.action === 'revoke' ? 'Revoke this key?' : 'Rotate this key?'}
        message={
          asking?.action === 'revoke'
            ? `“${nameOf(asking.key)}” will be refused from its next request on, everywhere. This cannot be undone.`
            : asking
              ? `“${nameOf(asking.key)}” gets a new secret, shown once. The old secret keeps working for 24 hours, then is refused.`
              : ''
        }
        confirmLabel={asking?.action === 'revoke' ? 'Revoke key' : 'Rotate key'}
        onClose={(confirmed) => void answer(confirmed)}
      />
    </>
  );
}
