import { useMemo, useState } from 'react';
import type { Agent } from '../../api/types.ts';
import { useAsync } from '../../hooks/use-async.ts';
import { navigate } from '../../hooks/use-location.ts';
import { useRunList } from '../../hooks/use-run-list.ts';
import { useSession } from '../../hooks/use-session.ts';
import { activeFilterCount, filtersFromSearch, searchFromFilters } from '../../lib/run-list-query.ts';
import { paths } from '../../lib/routes.ts';
import { ErrorMessage } from '../common/error-message.tsx';
import { RunFiltersForm } from './run-filters-form.tsx';
import { RunListTable } from './run-list-table.tsx';
import { isAdmin } from '../../lib/user-rights.ts';

/**
 * Every run the user may see (an admin: everyone's), newest first, filtered by status, agent, kind,
 * conversation, time and input text; the filters live in the address, so a reload or a shared link keeps
 * them. Each row opens the run's trace.
 */
export function RunsExplorerPage({ search }: { search: string }) {
  const { api, user } = useSession();
  const filters = useMemo(() => filtersFromSearch(search), [search]);
  const list = useRunList(filters);
  const agents = useAsync((signal) => api.listAgents(true, signal).catch(() => [] as Agent[]), [api]);
  const users = useAsync(
    (signal) => (isAdmin(user) ? api.listUsers(signal).catch(() => null) : Promise.resolve(null)),
    [api, user?.role],
  );
  const filtered = activeFilterCount(filters);
  const [selected, setSelected] = useState<string[]>([]);
  const toggle = (runId: string, on: boolean) =>
    setSelected((current) =>
      on ? [...current.filter((id) => id !== runId), runId].slice(-2) : current.filter((id) => id !== runId),
    );
  const [first, second] = selected;
  const count = `${list.runs.length}${list.hasMore ? '+' : ''} run${list.runs.length === 1 ? '' : 's'}`;

  return (
    <main className="page runs-page">
      <div className="page-title">
        <h1>Runs</h1>
        <button type="button" onClick={list.reload}>
          Refresh
        </button>
      </div>
      <p className="muted">
        {isAdmin(user) ? 'Runs of every user' : 'Your runs'}, newest first. Open one to see its trace.
      </p>
      <RunFiltersForm
        key={search}
        filters={filters}
        agents={agents.data ?? []}
        users={users.data ?? null}
        onApply={(next) => navigate(paths.runs(searchFromFilters(next)))}
      />
      <ErrorMessage error={list.error} context="Could not list runs" />
      <p className="muted small" role="status">
        {list.loading
          ? 'Loading runs…'
          : `${count}${filtered > 0 ? ` matching ${filtered} filter${filtered === 1 ? '' : 's'}` : ''}`}
      </p>
      {!list.loading && list.runs.length === 0 && !list.error ? (
        <p className="empty">No runs{filtered > 0 ? ' match these filters' : ' yet'}.</p>
      ) : null}
      {list.runs.length > 0 ? (
        <div className="button-row compare-bar">
          <button
            type="button"
            className="primary"
            disabled={first === undefined || second === undefined}
            onClick={() => {
              if (first !== undefined && second !== undefined) navigate(paths.compare(first, second));
            }}
          >
            Compare selected ({selected.length}/2)
          </button>
        </div>
      ) : null}
      {list.runs.length > 0 ? <RunListTable runs={list.runs} selected={selected} onToggle={toggle} /> : null}
      {list.hasMore ? (
        <div className="button-row">
          <button type="button" onClick={list.loadMore} disabled={list.loadingMore}>
            {list.loadingMore ? 'Loading…' : 'Load more'}
          </button>
        </div>
      ) : null}
    </main>
  );
}
