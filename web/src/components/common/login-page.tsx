import { useState, type FormEvent } from 'react';
import { createApiClient } from '../../api/api-client.ts';
import { createTroupeApi } from '../../api/troupe-api.ts';
import type { User } from '../../api/types.ts';
import { ErrorMessage } from './error-message.tsx';

export interface LoginPageProps {
  notice: string | null;
  onSignedIn: (token: string, user: User) => void;
}

/** Token sign-in: the token is checked with `GET /api/me` before it is stored. */
export function LoginPage({ notice, onSignedIn }: LoginPageProps) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const candidate = token.trim();
    if (candidate === '') return;
    setBusy(true);
    setError(undefined);
    try {
      const api = createTroupeApi(
        createApiClient({ getToken: () => candidate, onUnauthorized: () => undefined }),
      );
      onSignedIn(candidate, await api.me());
    } catch (thrown) {
      setError(thrown);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="login-page">
      <form className="login-card" onSubmit={(event) => void submit(event)} aria-labelledby="login-title">
        <h1 id="login-title">Troupe console</h1>
        <p className="muted">
          Sign in with an API token. <code>troupe serve</code> prints one at start-up;{' '}
          <code>troupe tokens</code> creates more.
        </p>
        {notice ? (
          <p className="notice" role="status">
            {notice}
          </p>
        ) : null}
        <label htmlFor="login-token">API token</label>
        <input
          id="login-token"
          type="password"
          autoComplete="current-password"
          value={token}
          onChange={(event) => setToken(event.target.value)}
          placeholder="trp_…"
          required
        />
        <ErrorMessage error={error} context="Sign-in failed" />
        <button type="submit" className="primary" disabled={busy || token.trim() === ''}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
