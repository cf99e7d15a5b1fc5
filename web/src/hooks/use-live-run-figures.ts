import { useCallback, useEffect, useRef } from 'react';
import type { RunEvent } from '../api/types.ts';
import { nextLeaseCheck, settlesModelCall } from '../lib/run-figures.ts';
import type { RunClock } from '../lib/run-phase.ts';

/** Settled calls arrive in bursts (a fan-out's children): one read per this long at most. */
const THROTTLE_MS = 750;

/**
 * Keeps the server's figures of `runs` current (docs/usage.md): `reload` reads them again after an event
 * that settled a model call (throttled), and when a lease may have expired or a lost worker been replaced.
 * Returns the handler to give every event of the runs' streams.
 */
export function useLiveRunFigures(
  runs: readonly (RunClock & { lease_expires_at?: string | null })[] | undefined,
  reload: () => void,
): (event: RunEvent) => void {
  const last = useRef(0);
  const pending = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const refresh = useCallback(() => {
    if (pending.current !== undefined) return;
    const wait = Math.max(0, last.current + THROTTLE_MS - Date.now());
    pending.current = setTimeout(() => {
      pending.current = undefined;
      last.current = Date.now();
      reload();
    }, wait);
  }, [reload]);

  useEffect(
    () => () => {
      if (pending.current !== undefined) clearTimeout(pending.current);
      pending.current = undefined;
    },
    [],
  );

  useEffect(() => {
    const now = Date.now();
    const at = nextLeaseCheck(runs ?? [], now);
    if (at === null) return undefined;
    const timer = setTimeout(reload, at - now);
    return () => clearTimeout(timer);
  }, [runs, reload]);

  return useCallback(
    (event: RunEvent) => {
      if (settlesModelCall(event)) refresh();
    },
    [refresh],
  );
}
