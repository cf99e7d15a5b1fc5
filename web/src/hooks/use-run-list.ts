import { useCallback, useEffect, useRef, useState } from 'react';
import type { RunListItem } from '../api/types.ts';
import { queryFromFilters, searchFromFilters, type RunFilters } from '../lib/run-list-query.ts';
import { useSession } from './use-session.ts';

export interface RunList {
  runs: RunListItem[];
  /** More pages exist. */
  hasMore: boolean;
  loading: boolean;
  loadingMore: boolean;
  error: unknown;
  loadMore: () => void;
  reload: () => void;
}

/** Pages of `GET /api/agent/runs` for the given filters: the first page on change, more on request. */
export function useRunList(filters: RunFilters, pageSize = 25): RunList {
  const { api } = useSession();
  const key = searchFromFilters(filters);
  const [runs, setRuns] = useState<RunListItem[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [loadingMore, setLoadingMore] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [tick, setTick] = useState(0);
  const filtersRef = useRef(filters);
  filtersRef.current = filters;
  const generation = useRef(0);

  useEffect(() => {
    const controller = new AbortController();
    generation.current += 1;
    setLoading(true);
    setError(undefined);
    api.listRuns(queryFromFilters(filtersRef.current, undefined, pageSize), controller.signal).then(
      (page) => {
        if (controller.signal.aborted) return;
        setRuns(page.runs);
        setCursor(page.next_cursor);
        setLoading(false);
      },
      (thrown: unknown) => {
        if (controller.signal.aborted) return;
        setError(thrown);
        setLoading(false);
      },
    );
    return () => controller.abort();
  }, [api, key, tick, pageSize]);

  const loadMore = useCallback(() => {
    if (cursor === null || loadingMore) return;
    const started = generation.current;
    setLoadingMore(true);
    api.listRuns(queryFromFilters(filtersRef.current, cursor, pageSize)).then(
      (page) => {
        // Filters changed meanwhile: this page belongs to another list.
        if (generation.current !== started) return;
        setRuns((current) => {
          const known = new Set(current.map((run) => run.id));
          return [...current, ...page.runs.filter((run) => !known.has(run.id))];
        });
        setCursor(page.next_cursor);
        setLoadingMore(false);
      },
      (thrown: unknown) => {
        if (generation.current !== started) return;
        setError(thrown);
        setLoadingMore(false);
      },
    );
  }, [api, cursor, loadingMore, pageSize]);

  const reload = useCallback(() => setTick((value) => value + 1), []);
  return { runs, hasMore: cursor !== null, loading, loadingMore, error, loadMore, reload };
}
