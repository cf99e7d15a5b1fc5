import { createContext, useContext } from 'react';
import type { Run, RunStatus } from '../../api/types.ts';
import type { PanelEntry } from '../../lib/subagent-panel.ts';

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
}

export const EMPTY_TRANSCRIPT_CONTEXT: TranscriptContextValue = {
  runsById: new Map(),
  liveStatus: new Map(),
  childByToolCall: new Map(),
  childByRunId: new Map(),
  childLabels: new Map(),
  awaitingApproval: new Set(),
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
