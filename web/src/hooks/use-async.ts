import { useCallback, useEffect, useRef, useState } from 'react';

export interface AsyncState<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload(): void;
  /** Replace the data locally (optimistic updates, results of a mutation). */
  setData(update: (current: T | undefined) => T | undefined): void;
}

/**
 * Loads `load()` when `deps` change and on `reload()`; an older response never overwrites a newer one.
 * The loader receives an AbortSignal that fires when it is superseded or the component unmounts.
 */
export function useAsync<T>(load: (signal: AbortSignal) => Promise<T>, deps: readonly unknown[]): AsyncState<T> {
  const [data, setDataState] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  useEffect(() => {
    const controller = new AbortController();
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
  const setData = useCallback((update: (current: T | undefined) => T | undefined) => setDataState(update), []);
  return { data, error, loading, reload, setData };
}
