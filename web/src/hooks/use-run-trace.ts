import { useCallback, useEffect, useRef, useState } from 'react';
import { openRunEventStream, type RunStreamHandle } from '../api/run-event-stream.ts';
import type { RunTrace } from '../api/types.ts';
import {
  applyTraceEvent,
  changesTree,
  isActiveNode,
  mergeSnapshot,
  streamCandidates,
} from '../lib/trace-model.ts';
import { nextLeaseCheck } from '../lib/run-figures.ts';
import { useSession } from './use-session.ts';

/**
 * Six HTTP/1.1 connections per origin, one per SSE stream: leave room for the detail's own stream and for
 * API calls. Active runs beyond this move with snapshots instead.
 */
const MAX_STREAMS = 3;
const REFRESH_MS = 5_000;

export interface RunTraceState {
  trace: RunTrace | null;
  error: unknown;
  /** Runs followed live right now. */
  streaming: string[];
  reload: () => void;
}

/**
 * The trace of `runId`'s tree: a snapshot (`GET …/trace`), then each active run's event stream from the
 * snapshot's `last_seq` (so a reload resumes where the stored events end, nothing lost or doubled). Events
 * that change the tree (a child starts or ends) bring a fresh snapshot; live timelines ahead of it are kept.
 */
export function useRunTrace(runId: string): RunTraceState {
  const { api } = useSession();
  const [trace, setTrace] = useState<RunTrace | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  const [streaming, setStreaming] = useState<string[]>([]);
  const traceRef = useRef<RunTrace | null>(null);
  traceRef.current = trace;
  // Selecting another run of the same tree changes the address, not the tree: keep the loaded key then.
  const loadedKey = useRef<string | null>(null);
  const inTrace = trace?.nodes.some((node) => node.run.id === runId) ?? false;
  const key = inTrace && loadedKey.current !== null ? loadedKey.current : runId;

  const inFlight = useRef(false);
  const again = useRef(false);
  const refetch = useCallback(() => {
    if (inFlight.current) {
      again.current = true;
      return;
    }
    inFlight.current = true;
    api
      .runTrace(key)
      .then(
        (next) => {
          loadedKey.current = key;
          setTrace((current) => mergeSnapshot(current, next));
          setError(undefined);
        },
        (thrown: unknown) => setError(thrown),
      )
      .finally(() => {
        inFlight.current = false;
        if (again.current) {
          again.current = false;
          refetch();
        }
      });
  }, [api, key]);

  useEffect(() => {
    refetch();
  }, [refetch]);

  // Live streams for the active runs (bounded), resumed from what the snapshot already holds.
  const streams = useRef(new Map<string, RunStreamHandle>());
  const wanted = trace ? streamCandidates(trace, MAX_STREAMS).join(',') : '';
  useEffect(() => {
    const open = streams.current;
    const keep = new Set(wanted === '' ? [] : wanted.split(','));
    for (const [id, handle] of open) {
      if (!keep.has(id)) {
        handle.close();
        open.delete(id);
      }
    }
    for (const id of keep) {
      if (open.has(id)) continue;
      const node = traceRef.current?.nodes.find((candidate) => candidate.run.id === id);
      const handle = openRunEventStream({
        client: api.client,
        runId: id,
        afterSeq: node?.timeline.last_seq ?? 0,
        onEvent: (event) => {
          setTrace((current) => (current === null ? current : applyTraceEvent(current, id, event)));
          if (changesTree(event)) refetch();
        },
      });
      open.set(id, handle);
      void handle.done.then(() => {
        if (open.get(id) === handle) open.delete(id);
        setStreaming([...open.keys()]);
      });
    }
    setStreaming([...open.keys()]);
  }, [api, wanted, refetch]);

  useEffect(() => {
    const open = streams.current;
    return () => {
      for (const handle of open.values()) handle.close();
      open.clear();
    };
  }, []);

  // More active runs than streams: the rest move with periodic snapshots.
  const unfollowed = trace ? trace.nodes.filter(isActiveNode).length > MAX_STREAMS : false;
  useEffect(() => {
    if (!unfollowed) return undefined;
    const timer = setInterval(refetch, REFRESH_MS);
    return () => clearInterval(timer);
  }, [unfollowed, refetch]);

  // A worker that stops renewing its leases sends no event: read again once a lease may have expired, and
  // while a worker is lost, until a takeover (docs/usage.md).
  useEffect(() => {
    const now = Date.now();
    const at = trace
      ? nextLeaseCheck(
          trace.nodes.map((node) => node.run),
          now,
        )
      : null;
    if (at === null) return undefined;
    const timer = setTimeout(refetch, at - now);
    return () => clearTimeout(timer);
  }, [trace, refetch]);

  return { trace, error, streaming, reload: refetch };
}
