import { useState, type FormEvent } from 'react';
import type { PublicToken } from '../../api/types.ts';
import { useAsync } from '../../hooks/use-async.ts';
import { useSession } from '../../hooks/use-session.ts';
import { formatTime } from '../../lib/format.ts';
import { CopyButton } from '../common/copy-button.tsx';
import { ConfirmDialog } from '../common/confirm-dialog.tsx';
import { DataTable } from '../common/data-table.tsx';
import { ErrorMessage } from '../common/error-message.tsx';

/** My API tokens: create (the secret is shown once), list, revoke. */
export function ApiTokensSection() {
  const { api } = useSession();
  const tokens = useAsync((_signal) => api.listTokens(), [api]);
  const [name, setName] = useState('');
  const [secret, setSecret] = useState<{ id: string; name: string; token: string } | null>(null);
  const [revoking, setRevoking] = useState<PublicToken | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const created = await api.createToken(name.trim());
      setSecret({ id: created.record.id, name: created.record.name, token: created.token });
      setName('');
      tokens.reload();
    } catch (thrown) {
      setError(thrown);
    } finally {
      setBusy(false);
    }
  };

  const revoke = async (token: PublicToken) => {
    setBusy(true);
    setError(undefined);
    try {
      await api.revokeToken(token.id);
      // A revoked secret is worth nothing: it is not offered for copying any more.
      setSecret((current) => (current?.id === token.id ? null : current));
      tokens.reload();
    } catch (thrown) {
      setError(thrown);
    } finally {
      setBusy(false);
      setRevoking(null);
    }
  };

  return (
    <section className="settings-section" aria-labelledby="tokens-title">
      <h2 id="tokens-title">API tokens</h2>
      <form className="inline-form" onSubmit={(event) => void create(event)} aria-label="Create a token">
        <label htmlFor="token-name">Token name</label>
        <input
          id="token-name"
          value={name}
          onChange={(event) => setName(event.target.value)}
          maxLength={100}
          required
        />
        <button type="submit" className="primary" disabled={busy || name.trim() === ''}>
          Create token
        </button>
      </form>
      {secret ? (
        <div className="secret-once" role="status" aria-label="New token">
          <p>
            Token <strong>{secret.name}</strong> created. Copy it now: it is shown only once.
          </p>
          <code className="secret">{secret.token}</code>
          <div className="button-row">
            <CopyButton value={secret.token} label="token" />
            <button type="button" onClick={() => setSecret(null)}>
              Done
            </button>
          </div>
        </div>
      ) : null}
      <ErrorMessage error={error ?? tokens.error} />
      <DataTable
        caption="Your API tokens"
        rows={tokens.data ?? []}
        rowKey={(token) => token.id}
        columns={[
          { header: 'Name', cell: (token) => token.name },
          { header: 'Prefix', cell: (token) => <code>{token.prefix}…</code> },
          { header: 'Created', cell: (token) => formatTime(token.created_at) },
          { header: 'Last used', cell: (token) => formatTime(token.last_used_at) },
          {
            header: 'State',
            cell: (token) => (token.revoked_at ? `revoked ${formatTime(token.revoked_at)}` : 'active'),
          },
          {
            header: 'Actions',
            actions: true,
            cell: (token) =>
              token.revoked_at ? null : (
                <button
                  type="button"
                  className="danger small"
                  onClick={() => setRevoking(token)}
                  aria-label={`Revoke ${token.name}`}
                >
                  Revoke
                </button>
              ),
          },
        ]}
      />
      {revoking ? (
        <ConfirmDialog
          title={`Revoke ${revoking.name}?`}
          message="Clients using this token get 401 from now on. If it is the token of this session, you are signed out."
          confirmLabel="Revoke"
          busy={busy}
          onConfirm={() => void revoke(revoking)}
          onCancel={() => setRevoking(null)}
        />
      ) : null}
    </section>
  );
}
