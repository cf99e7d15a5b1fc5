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
 */
export function useAsync<T>(
  load: (signal: AbortSignal) => Promise<T>,
  deps: readonly unknown[],
): AsyncState<T> {
  const [data, setDataState] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  const inFlight = useRef<AbortController | null>(null);

  useEffect(() => {
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
