import { useCallback, useMemo, useRef } from 'react';
import type { ArtifactView, Run, RunStatus } from '../../api/types.ts';
import type { PendingApproval } from '../../lib/live-run.ts';
import { entryLabels } from '../../lib/panel-groups.ts';
import { newRequestId } from '../../lib/request-id.ts';
import { childSlugsFromCalls } from '../../lib/subagent-calls.ts';
import type { PanelEntry } from '../../lib/subagent-panel.ts';
import type { ChatTurn } from '../../lib/transcript-items.ts';
import { turnText } from './message-actions.tsx';
import { childMaps, type TranscriptContextValue } from './transcript-context.ts';

export interface ConversationTranscriptInput {
  conversationId: string;
  turns: ChatTurn[];
  runs: Run[] | undefined;
  activeRunId: string | null;
  liveStatus: RunStatus | null;
  children: PanelEntry[];
  approvals: readonly PendingApproval[] | undefined;
  artifacts: readonly ArtifactView[] | undefined;
  /** A child's or an archived conversation: its messages offer no Edit or Retry. */
  readOnly: boolean;
  send: (content: string, requestId: string, attachmentIds: string[]) => Promise<void>;
}

/** What a conversation's transcript knows beyond its messages (`TranscriptContextValue`), kept stable. */
export function useConversationTranscriptContext(input: ConversationTranscriptInput): TranscriptContextValue {
  const { conversationId, turns, runs, activeRunId, liveStatus, children, approvals, artifacts, readOnly } =
    input;
  const lastRunId = runs?.[0]?.id ?? null;
  const retryTurnKey =
    turns.findLast((turn) => turn.runId === lastRunId && turn.role !== 'user')?.key ?? null;
  const editTurnKey = turns.findLast((turn) => turn.role === 'user')?.key ?? null;
  const childSlugs = useMemo(() => childSlugsFromCalls(turns), [turns]);
  // Stable for the transcript's context, and always the latest `send` (it reads the current state).
  const latestSend = useRef(input.send);
  latestSend.current = input.send;
  const resend = useCallback((text: string) => latestSend.current(text, newRequestId(), []), []);

  return useMemo<TranscriptContextValue>(
    () => ({
      runsById: new Map((runs ?? []).map((run) => [run.id, run])),
      liveStatus:
        activeRunId !== null && liveStatus !== null ? new Map([[activeRunId, liveStatus]]) : new Map(),
      ...childMaps(children, entryLabels(children)),
      awaitingApproval: new Set((approvals ?? []).map((approval) => approval.toolCallId)),
      childSlugs,
      conversationId,
      artifacts: artifacts ?? [],
      actions: readOnly
        ? null
        : {
            resend,
            retry: async (runId: string) => {
              const input = turns.find((turn) => turn.role === 'user' && turn.runId === runId);
              if (input) await resend(turnText(input));
            },
            busy: activeRunId !== null,
            retryTurnKey,
            editTurnKey,
          },
    }),
    [
      runs,
      activeRunId,
      liveStatus,
      children,
      approvals,
      childSlugs,
      conversationId,
      artifacts,
      readOnly,
      resend,
      turns,
      retryTurnKey,
      editTurnKey,
    ],
  );
}
