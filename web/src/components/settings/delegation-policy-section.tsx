import { useEffect, useState } from 'react';
import { isUnavailable } from '../../api/api-error.ts';
import type { DelegationPolicy, DelegationPolicySettings } from '../../api/types.ts';
import { useAsync } from '../../hooks/use-async.ts';
import { useSession } from '../../hooks/use-session.ts';
import { ErrorMessage } from '../common/error-message.tsx';

const MAX_WHITELIST = 10;

/** Reads `{policy, whitelist}` whatever the server's exact field names turn out to be. */
function normalise(body: DelegationPolicySettings | Record<string, unknown>): {
  policy: DelegationPolicy;
  whitelist: string[];
  notes: string[];
} {
  const record = body as Record<string, unknown>;
  const inner = (
    record.delegation_policy && typeof record.delegation_policy === 'object'
      ? record.delegation_policy
      : record
  ) as Record<string, unknown>;
  const policy = (inner.policy ?? inner.delegation_policy ?? 'none') as DelegationPolicy;
  const list = inner.whitelist ?? inner.delegation_whitelist;
  const dropped = inner.dropped ?? inner.excess ?? record.dropped;
  const notes: string[] = [];
  if (Array.isArray(dropped) && dropped.length > 0)
    notes.push(`Dropped (over the limit of ${MAX_WHITELIST}): ${dropped.join(', ')}`);
  if (Array.isArray(inner.warnings)) notes.push(...inner.warnings.map(String));
  return { policy, whitelist: Array.isArray(list) ? list.map(String) : [], notes };
}

/** Which experts my agents may delegate to: none, all I can use, or a whitelist. */
export function DelegationPolicySection() {
  const { api } = useSession();
  const current = useAsync((signal) => api.getDelegationPolicy(signal), [api]);
  const experts = useAsync(
    async (signal) => (await api.listAgents(false, signal)).filter((agent) => agent.status === 'published'),
    [api],
  );
  const [policy, setPolicy] = useState<DelegationPolicy>('none');
  const [whitelist, setWhitelist] = useState<string[]>([]);
  const [notes, setNotes] = useState<string[]>([]);
  const [saved, setSaved] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!current.data) return;
    const value = normalise(current.data);
    setPolicy(value.policy);
    setWhitelist(value.whitelist);
    setNotes(value.notes);
  }, [current.data]);

  if (isUnavailable(current.error)) {
    return (
      <section className="settings-section" aria-labelledby="delegation-title">
        <h2 id="delegation-title">Delegation policy</h2>
        <p className="muted" role="status">
          Delegation policy is not available on this server yet (<code>/api/me/delegation-policy</code>).
        </p>
      </section>
    );
  }

  const save = async () => {
    setBusy(true);
    setError(undefined);
    setSaved(false);
    try {
      const value = normalise(await api.putDelegationPolicy({ policy, whitelist }));
      setPolicy(value.policy);
      setWhitelist(value.whitelist);
      setNotes(value.notes);
      setSaved(true);
    } catch (thrown) {
      setError(thrown);
    } finally {
      setBusy(false);
    }
  };

  const known = new Set((experts.data ?? []).map((agent) => agent.slug));
  const toggle = (slug: string, on: boolean) =>
    setWhitelist((list) => (on ? [...list, slug] : list.filter((item) => item !== slug)));

  return (
    <section className="settings-section" aria-labelledby="delegation-title">
      <h2 id="delegation-title">Delegation policy</h2>
      <p className="muted">
        Which experts your agents may hand tasks to. Experts you @mention in a message are added for that run.
      </p>
      <ErrorMessage error={current.error} context="Could not load the policy" />
      <fieldset className="fieldset">
        <legend>Policy</legend>
        {(['none', 'all', 'whitelist'] as const).map((value) => (
          <label key={value} className="radio">
            <input
              type="radio"
              name="delegation-policy"
              value={value}
              checked={policy === value}
              onChange={() => setPolicy(value)}
            />
            {value === 'none'
              ? 'None: no delegation'
              : value === 'all'
                ? 'All experts I can use'
                : `Whitelist (at most ${MAX_WHITELIST})`}
          </label>
        ))}
      </fieldset>
      {policy === 'whitelist' ? (
        <fieldset className="fieldset">
          <legend>Whitelisted experts</legend>
          <ul className="checkbox-list">
            {(experts.data ?? []).map((agent) => (
              <li key={agent.id}>
                <label>
                  <input
                    type="checkbox"
                    checked={whitelist.includes(agent.slug)}
                    onChange={(event) => toggle(agent.slug, event.target.checked)}
                  />
                  {agent.name} <code>{agent.slug}</code>
                </label>
              </li>
            ))}
            {whitelist
              .filter((slug) => !known.has(slug))
              .map((slug) => (
                <li key={slug}>
                  <label>
                    <input type="checkbox" checked onChange={() => toggle(slug, false)} />
                    <code>{slug}</code> <span className="muted">(not a published expert you can use)</span>
                  </label>
                </li>
              ))}
          </ul>
          {whitelist.length > MAX_WHITELIST ? (
            <p className="notice">Only the first {MAX_WHITELIST} are kept; the server drops the rest.</p>
          ) : null}
        </fieldset>
      ) : null}
      {notes.map((note) => (
        <p key={note} className="notice">
          {note}
        </p>
      ))}
      <ErrorMessage error={error} context="Could not save the policy" />
      <div className="button-row">
        <button
          type="button"
          className="primary"
          disabled={busy || current.loading}
          onClick={() => void save()}
        >
          Save policy
        </button>
        {saved ? (
          <span role="status" className="ok-text">
            Saved.
          </span>
        ) : null}
      </div>
    </section>
  );
}
