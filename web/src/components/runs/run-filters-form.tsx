import { useId, useState, type FormEvent } from 'react';
import { Field } from '../common/field.tsx';
import { RUN_STATUSES, RUN_VERDICTS, type Agent, type User } from '../../api/types.ts';
import { VERDICT_LABELS } from '../../lib/verdict.ts';
import { presentStatus } from '../../lib/run-status.ts';
import {
  activeFilterCount,
  EMPTY_FILTERS,
  fromLocalInput,
  RUN_KINDS,
  toLocalInput,
  type RunFilters,
} from '../../lib/run-list-query.ts';

export interface RunFiltersFormProps {
  filters: RunFilters;
  agents: Agent[];
  /** Admins only: whose runs. */
  users: User[] | null;
  onApply: (filters: RunFilters) => void;
}

function toggle<T>(list: readonly T[], value: T, on: boolean): T[] {
  return on ? [...list, value] : list.filter((item) => item !== value);
}

/** The explorer's filters; applied on submit so typing does not fire a request per key. */
export function RunFiltersForm({ filters, agents, users, onApply }: RunFiltersFormProps) {
  const [draft, setDraft] = useState(filters);
  const moreId = useId();
  const narrowed = activeFilterCount({ ...filters, q: '' });
  // Wide screens show every filter; a phone starts with the search box and opens the rest on request.
  const [showMore, setShowMore] = useState(
    () => narrowed > 0 || typeof window === 'undefined' || window.matchMedia('(min-width: 700px)').matches,
  );
  const set = <K extends keyof RunFilters>(key: K, value: RunFilters[K]) =>
    setDraft((current) => ({ ...current, [key]: value }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply(draft);
  };
  return (
    <form className="run-filters" onSubmit={submit} aria-label="Filter runs">
      <Field id="runs-q" label="Search the input" className="field run-search">
        {(control) => (
          <input
            {...control}
            type="search"
            value={draft.q}
            onChange={(event) => set('q', event.target.value)}
            placeholder="words from the message that started the run"
          />
        )}
      </Field>
      <button
        type="button"
        className="more-filters-toggle small"
        aria-expanded={showMore}
        aria-controls={moreId}
        onClick={() => setShowMore(!showMore)}
      >
        {showMore ? 'Fewer filters' : `More filters${narrowed > 0 ? ` (${narrowed} set)` : ''}`}
      </button>
      <div id={moreId} className="more-filters" hidden={!showMore}>
        <div className="run-filters-grid">
          <Field id="runs-agent" label="Agent">
            {(control) => (
              <select {...control} value={draft.agent} onChange={(event) => set('agent', event.target.value)}>
                <option value="">any agent</option>
                {agents.map((agent) => (
                  <option key={agent.id} value={agent.slug}>
                    {agent.name} ({agent.slug})
                  </option>
                ))}
              </select>
            )}
          </Field>
          {users ? (
            <Field id="runs-user" label="User">
              {(control) => (
                <select
                  {...control}
                  value={draft.user_id}
                  onChange={(event) => set('user_id', event.target.value)}
                >
                  <option value="">everyone</option>
                  {users.map((user) => (
                    <option key={user.id} value={user.id}>
                      {user.name}
                    </option>
                  ))}
                </select>
              )}
            </Field>
          ) : null}
          <Field id="runs-conversation" label="Conversation id">
            {(control) => (
              <input
                {...control}
                value={draft.conversation_id}
                onChange={(event) => set('conversation_id', event.target.value)}
                placeholder="cnv_…"
              />
            )}
          </Field>
          <Field id="runs-from" label="Created from">
            {(control) => (
              <input
                {...control}
                type="datetime-local"
                value={toLocalInput(draft.from)}
                onChange={(event) => set('from', fromLocalInput(event.target.value))}
              />
            )}
          </Field>
          <Field id="runs-to" label="Created before">
            {(control) => (
              <input
                {...control}
                type="datetime-local"
                value={toLocalInput(draft.to)}
                onChange={(event) => set('to', fromLocalInput(event.target.value))}
              />
            )}
          </Field>
        </div>
        <fieldset className="checkbox-fieldset">
          <legend>Status</legend>
          <ul className="checkbox-list">
            {RUN_STATUSES.map((status) => (
              <li key={status}>
                <label>
                  <input
                    type="checkbox"
                    checked={draft.status.includes(status)}
                    onChange={(event) => set('status', toggle(draft.status, status, event.target.checked))}
                  />
                  {presentStatus(status).label}
                </label>
              </li>
            ))}
          </ul>
        </fieldset>
        <fieldset className="checkbox-fieldset">
          <legend>Kind</legend>
          <ul className="checkbox-list">
            {RUN_KINDS.map((kind) => (
              <li key={kind}>
                <label>
                  <input
                    type="checkbox"
                    checked={draft.kind.includes(kind)}
                    onChange={(event) => set('kind', toggle(draft.kind, kind, event.target.checked))}
                  />
                  {kind}
                </label>
              </li>
            ))}
            <li>
              <label>
                <input
                  type="checkbox"
                  checked={draft.forked}
                  onChange={(event) => set('forked', event.target.checked)}
                />
                forks only
              </label>
            </li>
          </ul>
        </fieldset>
        <fieldset className="checkbox-fieldset">
          <legend>Verdict</legend>
          <ul className="checkbox-list">
            {RUN_VERDICTS.map((verdict) => (
              <li key={verdict}>
                <label>
                  <input
                    type="checkbox"
                    // "Failed" is a status too: the verdict's checkbox says which list it belongs to.
                    aria-label={`Verdict ${VERDICT_LABELS[verdict]}`}
                    checked={draft.verdict.includes(verdict)}
                    onChange={(event) => set('verdict', toggle(draft.verdict, verdict, event.target.checked))}
                  />
                  {VERDICT_LABELS[verdict]}
                </label>
              </li>
            ))}
          </ul>
        </fieldset>
      </div>
      <div className="button-row">
        <button type="submit" className="primary">
          Apply filters
        </button>
        <button
          type="button"
          onClick={() => {
            setDraft(EMPTY_FILTERS);
            onApply(EMPTY_FILTERS);
          }}
        >
          Clear
        </button>
      </div>
    </form>
  );
}
