import { useCallback, useEffect, useRef, useState } from 'react';

export interface AsyncState<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
  /** Replace the data locally (optimistic updates, results of a mutation). */
  setData: (update: (current: T | undefined) => T | undefined) => void;
}

/**
 * Loads `load()` when `deps` change and on `reload()`; an older response never overwrites a newer one, nor
 * data set locally with `setData` after it was asked for.
 * The loader receives an AbortSignal that fires when it is superseded or the component unmounts.
 * `ready`, asked once on mount, may hand over data already at hand (what index.html prefetched, see
 * api/prefetched-responses.ts): the first render shows it and the first load is skipped.
 */
export function useAsync<T>(
  load: (signal: AbortSignal) => Promise<T>,
  deps: readonly unknown[],
  ready?: () => T | undefined,
): AsyncState<T> {
  const [initial] = useState(() => ready?.());
  const [data, setDataState] = useState<T | undefined>(initial);
  const [error, setError] = useState<unknown>(undefined);
  const [loading, setLoading] = useState(initial === undefined);
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  const inFlight = useRef<AbortController | null>(null);
  const skipFirstLoad = useRef(initial !== undefined);

  useEffect(() => {
    if (skipFirstLoad.current) {
      skipFirstLoad.current = false;
      return undefined;
    }
    const controller = new AbortController();
    inFlight.current = controller;
    setLoading(true);
    loadRef.current(controller.signal).then(
      (value) => {
        if (controller.signal.aborted) return;
        setDataState(value);
        setError(undefined);
        setLoading(false);
      },
      (thrown: unknown) => {
        if (controller.signal.aborted) return;
        setError(thrown);
        setLoading(false);
      },
    );
    return () => controller.abort();
    // The caller names the dependencies, as with useEffect.
  }, [...deps, tick]);

  const reload = useCallback(() => setTick((value) => value + 1), []);
  // Local data is newer than any load still in flight: that load must not overwrite it when it lands.
  const setData = useCallback((update: (current: T | undefined) => T | undefined) => {
    inFlight.current?.abort();
    setLoading(false);
    setDataState(update);
  }, []);
  return { data, error, loading, reload, setData };
}
