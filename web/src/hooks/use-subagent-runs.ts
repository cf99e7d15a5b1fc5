import { useCallback, useEffect, useRef, useState } from 'react';
import { isUnavailable } from '../api/api-error.ts';
import { openRunEventStream, type RunStreamHandle } from '../api/run-event-stream.ts';
import type { PanelUpdate } from '../lib/subagent-panel.ts';
import type { VerdictView } from '../lib/verdict.ts';
import { settlesModelCall } from '../lib/run-figures.ts';
import {
  applyChildEvent,
  applyVerdict,
  applySubagentUpdate,
  isActiveEntry,
  mergeApiList,
  type PanelEntry,
} from '../lib/subagent-panel.ts';
import { useSession } from './use-session.ts';

/**
 * Browsers allow six HTTP/1.1 connections per origin and every SSE stream holds one: the parent's stream,
 * these and ordinary API calls must all fit. Children beyond this still move live through the parent's
 * `subagent_update` events and the periodic refresh.
 */
const MAX_CHILD_STREAMS = 3;
const REFRESH_MS = 5_000;

export interface SubagentRuns {
  entries: PanelEntry[];
  /** false when the server has no status panel endpoint yet (issue 3); null while unknown. */
  available: boolean | null;
  error: unknown;
  reload: () => void;
  applyUpdate: (payload: PanelUpdate, parentRunId: string | null) => void;
  /** A `verification` event's verdict for one child run. */
  applyVerdict: (runId: string, verdict: VerdictView) => void;
  cancel: (runId: string) => Promise<void>;
}

export function useSubagentRuns(conversationId: string | null): SubagentRuns {
  const { api } = useSession();
  const [entries, setEntries] = useState<PanelEntry[]>([]);
  const [available, setAvailable] = useState<boolean | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  const [tick, setTick] = useState(0);
  const streams = useRef(new Map<string, RunStreamHandle>());
  const entriesRef = useRef(entries);
  entriesRef.current = entries;

  const reload = useCallback(() => setTick((value) => value + 1), []);
  // Children settle calls in bursts: one read of the panel per this long at most.
  const refreshTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const refreshSoon = useCallback(() => {
    refreshTimer.current ??= setTimeout(() => {
      refreshTimer.current = undefined;
      reload();
    }, 750);
  }, [reload]);
  useEffect(
    () => () => {
      if (refreshTimer.current !== undefined) clearTimeout(refreshTimer.current);
    },
    [],
  );

  // A different conversation starts from nothing.
  useEffect(() => {
    setEntries([]);
    setAvailable(null);
    setError(undefined);
  }, [conversationId]);

  useEffect(() => {
    if (conversationId === null) return undefined;
    const controller = new AbortController();
    api.listSubagentRuns(conversationId, controller.signal).then(
      (list) => {
        if (controller.signal.aborted) return;
        setAvailable(true);
        setError(undefined);
        setEntries((current) => mergeApiList(current, list));
      },
      (thrown: unknown) => {
        if (controller.signal.aborted) return;
        if (isUnavailable(thrown)) setAvailable(false);
        else setError(thrown);
      },
    );
    return () => controller.abort();
  }, [api, conversationId, tick]);

  const anyActive = entries.some(isActiveEntry);
  useEffect(() => {
    if (!anyActive || available !== true) return undefined;
    const timer = setInterval(reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [anyActive, available, reload]);

  // Follow the newest active children's own streams for their progress line.
  const wanted = entries
    .filter(isActiveEntry)
    .slice(-MAX_CHILD_STREAMS)
    .map((entry) => entry.run_id);
  const wantedKey = wanted.join(',');
  useEffect(() => {
    const open = streams.current;
    const keep = new Set(wantedKey === '' ? [] : wantedKey.split(','));
    for (const [runId, handle] of open) {
      if (!keep.has(runId)) {
        handle.close();
        open.delete(runId);
      }
    }
    for (const runId of keep) {
      if (open.has(runId)) continue;
      const entry = entriesRef.current.find((candidate) => candidate.run_id === runId);
      const handle = openRunEventStream({
        client: api.client,
        runId,
        afterSeq: entry?.liveSeq ?? 0,
        onEvent: (event) => {
          setEntries((current) => applyChildEvent(current, runId, event));
          // Usage is the server's figure (docs/usage.md): read it again once a call settled.
          if (settlesModelCall(event)) refreshSoon();
        },
      });
      open.set(runId, handle);
      void handle.done.then((outcome) => {
        if (open.get(runId) === handle) open.delete(runId);
        if (outcome === 'ended') reload();
      });
    }
  }, [api, wantedKey, reload, refreshSoon]);

  useEffect(() => {
    const open = streams.current;
    return () => {
      for (const handle of open.values()) handle.close();
      open.clear();
    };
  }, [conversationId]);

  const applyUpdate = useCallback((payload: PanelUpdate, parentRunId: string | null) => {
    setEntries((current) => applySubagentUpdate(current, payload, parentRunId));
  }, []);

  const applyVerdictTo = useCallback((runId: string, verdict: VerdictView) => {
    setEntries((current) => applyVerdict(current, runId, verdict));
  }, []);

  const cancel = useCallback(
    async (runId: string) => {
      const run = await api.cancelRun(runId);
      setEntries((current) =>
        applySubagentUpdate(current, { run_id: runId, status: run.status }, run.created_by_run_id),
      );
    },
    [api],
  );

  return { entries, available, error, reload, applyUpdate, applyVerdict: applyVerdictTo, cancel };
}
