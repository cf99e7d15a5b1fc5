import { useCallback, useEffect, useRef, useState } from 'react';
import type { ApiError } from '../api/api-error.ts';
import { openRunEventStream, type StreamState } from '../api/run-event-stream.ts';
import type { RunEvent } from '../api/types.ts';
import {
  applyRunEvent,
  dismissApproval,
  dismissQuestion,
  emptyLiveRun,
  type LiveRun,
} from '../lib/live-run.ts';
import { browserSessionStorage, createRunStreamStore } from '../lib/run-stream-store.ts';
import { useSession } from './use-session.ts';

export interface UseRunStreamOptions {
  /** Every new event, in seq order, once (e.g. `subagent_update` for the status panel). */
  onEvent?: (event: RunEvent, view: LiveRun) => void;
  /** A view saved by an earlier page was restored; the stream resumes after its last seq. */
  onRestore?: (view: LiveRun) => void;
  /** The run's `end` arrived; the view is final. */
  onEnd?: (view: LiveRun) => void;
}

export interface RunStream {
  view: LiveRun | null;
  state: StreamState | 'idle';
  fatal: ApiError | null;
  dismissApproval: (toolCallId: string) => void;
  dismissQuestion: (toolCallId: string) => void;
}

const store = createRunStreamStore(browserSessionStorage());

/**
 * Follows one run's event stream. The folded view is saved in sessionStorage after every event, so a reload
 * restores it and resumes with `Last-Event-ID` = its last seq: nothing lost, nothing doubled.
 */
export function useRunStream(runId: string | null, options: UseRunStreamOptions = {}): RunStream {
  const { api } = useSession();
  const [view, setView] = useState<LiveRun | null>(null);
  const [state, setState] = useState<StreamState | 'idle'>('idle');
  const [fatal, setFatal] = useState<ApiError | null>(null);
  const optionsRef = useRef(options);
  optionsRef.current = options;
  const viewRef = useRef<LiveRun | null>(null);

  useEffect(() => {
    setFatal(null);
    if (runId === null) {
      viewRef.current = null;
      setView(null);
      setState('idle');
      return undefined;
    }
    // A stored view that already ended is stale (the page only follows active runs): start over.
    const stored = store.load(runId);
    const initial = stored?.end === null ? stored : emptyLiveRun(runId);
    viewRef.current = initial;
    setView(initial);
    if (initial.lastSeq > 0) optionsRef.current.onRestore?.(initial);
    const handle = openRunEventStream({
      client: api.client,
      runId,
      afterSeq: initial.lastSeq,
      onState: setState,
      onFatal: setFatal,
      onEvent: (event) => {
        const current = viewRef.current ?? emptyLiveRun(runId);
        const next = applyRunEvent(current, event);
        viewRef.current = next;
        setView(next);
        if (event.type === 'end') store.clear(runId);
        else store.save(next);
        optionsRef.current.onEvent?.(event, next);
        if (event.type === 'end') optionsRef.current.onEnd?.(next);
      },
    });
    return () => handle.close();
  }, [api, runId]);

  const dismiss = useCallback((toolCallId: string) => {
    const current = viewRef.current;
    if (!current) return;
    const next = dismissApproval(current, toolCallId);
    viewRef.current = next;
    setView(next);
    store.save(next);
  }, []);

  const dismissAnswered = useCallback((toolCallId: string) => {
    const current = viewRef.current;
    if (!current) return;
    const next = dismissQuestion(current, toolCallId);
    viewRef.current = next;
    setView(next);
    store.save(next);
  }, []);

  return { view, state, fatal, dismissApproval: dismiss, dismissQuestion: dismissAnswered };
}
