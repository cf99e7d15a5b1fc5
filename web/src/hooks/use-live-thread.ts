import { useCallback, useEffect, useMemo, useState } from 'react';
import type { StreamState } from '../api/run-event-stream.ts';
import type { ThreadMessage } from '../api/types.ts';
import { buildTranscript } from '../lib/build-transcript.ts';
import type { LiveRun } from '../lib/live-run.ts';
import type { ChatTurn } from '../lib/transcript-items.ts';
import { useAsync } from './use-async.ts';
import { useRunStream } from './use-run-stream.ts';
import { useSession } from './use-session.ts';

export interface LiveThread {
  turns: ChatTurn[];
  messages: ThreadMessage[] | undefined;
  error: unknown;
  loading: boolean;
  streamState: StreamState | 'idle';
  view: LiveRun | null;
}

/**
 * A child's thread as it happens: its saved messages, plus — while its run is active — the run's own event
 * stream folded in (text as it streams, tool calls as they start), not a periodic re-read of saved messages.
 * When the run ends the saved messages are read once more and take over.
 */
export function useLiveThread(
  conversationId: string | null,
  runId: string | null,
  active: boolean,
  filterRunId?: string,
): LiveThread {
  const { api } = useSession();
  const messages = useAsync(
    (signal) => (conversationId === null ? Promise.resolve([]) : api.listMessages(conversationId, signal)),
    [api, conversationId],
  );
  const { reload } = messages;
  const onEnd = useCallback(() => reload(), [reload]);
  // Once followed, the stream is kept until its own `end`: a card may learn of the end first.
  const [follow, setFollow] = useState(active);
  useEffect(() => {
    if (active) setFollow(true);
  }, [active]);
  const stream = useRunStream(follow ? runId : null, { onEnd });
  const view = stream.view;
  const turns = useMemo(() => {
    const saved = (messages.data ?? []).filter(
      (row) => filterRunId === undefined || row.run_id === filterRunId,
    );
    const liveRuns = new Map<string, LiveRun>();
    // Once the saved messages hold the whole completed run (re-read after its end), they win; a run that
    // stopped early keeps what was streamed on screen.
    const settled = view?.end?.status === 'completed' && !messages.loading;
    if (view && runId !== null && view.runId === runId && !settled) liveRuns.set(runId, view);
    return buildTranscript({ messages: saved, liveRuns });
  }, [messages.data, messages.loading, view, runId, filterRunId]);
  return {
    turns,
    messages: messages.data,
    error: messages.error,
    loading: messages.loading,
    streamState: stream.state,
    view,
  };
}
