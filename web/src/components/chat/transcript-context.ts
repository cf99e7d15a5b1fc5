import { createContext, useContext } from 'react';
import type { ArtifactView, Run, RunStatus } from '../../api/types.ts';
import type { PanelEntry } from '../../lib/subagent-panel.ts';

/** What a conversation lets its messages do: resend a user message, retry a run's answer. */
export interface TranscriptActions {
  /** Sends `text` as a new message of the conversation (edit and resend). */
  resend: (text: string) => Promise<void>;
  /** Sends the run's own user message again. */
  retry: (runId: string) => Promise<void>;
  /** A run is active: nothing can be sent until it ends. */
  busy: boolean;
  /** The turn that offers Retry (the end of the latest run's answer) and the one that offers Edit (the latest user message). */
  retryTurnKey: string | null;
  editTurnKey: string | null;
}

/**
 * What a transcript knows beyond its messages: the runs behind the turns (for the per-turn footer), the
 * child runs behind subagent and delegation tool calls, and which calls wait for an approval. A transcript
 * without a provider (a child's thread) simply shows less.
 */
export interface TranscriptContextValue {
  runsById: ReadonlyMap<string, Run>;
  /** The status the live stream shows for a run, newer than `runsById`. */
  liveStatus: ReadonlyMap<string, RunStatus>;
  /** Child runs by the tool call that started them (`parent_tool_call_id`). */
  childByToolCall: ReadonlyMap<string, PanelEntry>;
  childByRunId: ReadonlyMap<string, PanelEntry>;
  /** Labels that tell apart children of the same subagent ("Researcher #2"). */
  childLabels: ReadonlyMap<string, string>;
  awaitingApproval: ReadonlySet<string>;
  /** Child names by run id, read from the calls that started them: the fallback when no card knows it. */
  childSlugs: ReadonlyMap<string, string>;
  /** The conversation's presented files, shown under the `present_artifacts` call that presented them. */
  conversationId: string | null;
  artifacts: readonly ArtifactView[];
  actions: TranscriptActions | null;
}

export const EMPTY_TRANSCRIPT_CONTEXT: TranscriptContextValue = {
  runsById: new Map(),
  liveStatus: new Map(),
  childByToolCall: new Map(),
  childByRunId: new Map(),
  childLabels: new Map(),
  awaitingApproval: new Set(),
  childSlugs: new Map(),
  conversationId: null,
  artifacts: [],
  actions: null,
};

export const TranscriptContext = createContext<TranscriptContextValue>(EMPTY_TRANSCRIPT_CONTEXT);

export function useTranscriptContext(): TranscriptContextValue {
  return useContext(TranscriptContext);
}

/** Lookup maps over the status panel's entries. */
export function childMaps(entries: readonly PanelEntry[], labels: ReadonlyMap<string, string>) {
  const childByToolCall = new Map<string, PanelEntry>();
  const childByRunId = new Map<string, PanelEntry>();
  for (const entry of entries) {
    childByRunId.set(entry.run_id, entry);
    if (entry.parent_tool_call_id) childByToolCall.set(entry.parent_tool_call_id, entry);
  }
  return { childByToolCall, childByRunId, childLabels: labels };
}
