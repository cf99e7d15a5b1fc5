import type { RunEvent, RunStatus, SubagentRunEntry, SubagentUpdatePayload } from '../api/types.ts';
import { isTerminalStatus } from '../api/types.ts';
import { compactionNotice, modelNotice } from './model-notice.ts';
import { verdictFromStored, type VerdictView } from './verdict.ts';
import { textLine, toolCallLine, truncateEnd, oneLine } from './text.ts';

/** A status panel card: the API entry plus what the child's own stream showed since. */
export interface PanelEntry extends SubagentRunEntry {
  /** One line, ≤ 80 chars: the last tool call as `name(args…)` or the last text. */
  latest: string | null;
  /** The last child event folded in; the child stream resumes after it. */
  liveSeq: number;
  /** Text of the child's current step, accumulated from deltas (the line shows its tail). */
  pendingText: string;
  /** The latest verdict on this child from its parent's stream: "needs revision" while a revision runs. */
  verdict?: VerdictView | null;
}

const str = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

function lineFromProgress(entry: SubagentRunEntry): string | null {
  const item = entry.progress?.items.at(-1);
  if (!item) return null;
  return truncateEnd(oneLine(item.content), 80);
}

function errorOf(
  value: SubagentUpdatePayload['error'] | undefined,
): NonNullable<PanelEntry['result']>['error'] {
  if (value == null) return null;
  if (typeof value === 'string') return { message: value };
  return value;
}

/** A stale read never moves a card out of a terminal status: nothing leaves a terminal state. */
function mergeStatus(current: RunStatus, incoming: RunStatus): RunStatus {
  if (isTerminalStatus(current) && !isTerminalStatus(incoming)) return current;
  return incoming;
}

export function panelEntryFromApi(entry: SubagentRunEntry): PanelEntry {
  const last = entry.progress?.items.at(-1);
  return {
    ...entry,
    latest: lineFromProgress(entry),
    liveSeq: entry.progress?.last_seq ?? 0,
    // The child stream resumes after the summarised events: its next deltas continue this text.
    pendingText: last?.kind === 'assistant_message' ? last.content : '',
    verdict: verdictFromStored(entry.verification),
  };
}

/** The list endpoint is the base; cards it does not know yet (live updates racing it) are kept. */
export function mergeApiList(
  current: readonly PanelEntry[],
  list: readonly SubagentRunEntry[],
): PanelEntry[] {
  const byId = new Map(current.map((entry) => [entry.run_id, entry]));
  const merged: PanelEntry[] = list.map((apiEntry) => {
    const fresh = panelEntryFromApi(apiEntry);
    const existing = byId.get(apiEntry.run_id);
    if (!existing) return fresh;
    const liveIsNewer = existing.liveSeq > fresh.liveSeq;
    return {
      ...fresh,
      status: mergeStatus(existing.status, fresh.status),
      result: fresh.result ?? existing.result,
      latest: liveIsNewer ? existing.latest : (fresh.latest ?? existing.latest),
      liveSeq: Math.max(existing.liveSeq, fresh.liveSeq),
      pendingText: liveIsNewer ? existing.pendingText : fresh.pendingText,
      // The server's usage is live; a card it has not seen start yet keeps what an `end` reported.
      usage: fresh.usage ?? existing.usage,
      // The stream's verdict is as new as the stored one or newer; the stored one shows after a reload.
      verdict: existing.verdict ?? fresh.verdict ?? null,
    };
  });
  const listed = new Set(list.map((entry) => entry.run_id));
  for (const entry of current) if (!listed.has(entry.run_id)) merged.push(entry);
  return sortEntries(merged);
}

function sortEntries(entries: PanelEntry[]): PanelEntry[] {
  return entries
    .map((entry, index) => ({ entry, index }))
    .sort((left, right) => {
      const a = left.entry.created_at ?? '';
      const b = right.entry.created_at ?? '';
      if (a && b && a !== b) return a < b ? -1 : 1;
      return left.index - right.index;
    })
    .map(({ entry }) => entry);
}

/** What moves a card: a `subagent_update`'s payload, or the run and status the console itself learnt (a cancel). */
export type PanelUpdate = Pick<SubagentUpdatePayload, 'run_id' | 'status'> & Partial<SubagentUpdatePayload>;

/** A `subagent_update` from the parent's stream: creates the card or moves its status. */
export function applySubagentUpdate(
  current: readonly PanelEntry[],
  payload: PanelUpdate,
  parentRunId: string | null,
  at: string = new Date().toISOString(),
): PanelEntry[] {
  const existing = current.find((entry) => entry.run_id === payload.run_id);
  const error = errorOf(payload.error);
  const output = payload.output ?? null;
  const terminal = isTerminalStatus(payload.status);
  if (!existing) {
    const created: PanelEntry = {
      run_id: payload.run_id,
      kind: payload.kind ?? 'subagent',
      slug: payload.slug ?? null,
      name: payload.name ?? null,
      status: payload.status,
      child_thread_id: payload.child_thread_id ?? null,
      child_conversation_id: payload.child_conversation_id ?? null,
      parent_run_id: parentRunId,
      parent_tool_call_id: payload.parent_tool_call_id ?? null,
      description: payload.description ?? null,
      progress: null,
      result: terminal || error || output ? { output, error } : null,
      created_at: at,
      started_at: null,
      finished_at: terminal ? at : null,
      usage: null,
      latest: null,
      liveSeq: 0,
      pendingText: '',
    };
    return sortEntries([...current, created]);
  }
  return current.map((entry) => {
    if (entry.run_id !== payload.run_id) return entry;
    const status = mergeStatus(entry.status, payload.status);
    return {
      ...entry,
      kind: payload.kind ?? entry.kind,
      slug: payload.slug ?? entry.slug,
      name: payload.name ?? entry.name,
      status,
      child_thread_id: payload.child_thread_id ?? entry.child_thread_id,
      child_conversation_id: payload.child_conversation_id ?? entry.child_conversation_id,
      parent_tool_call_id: payload.parent_tool_call_id ?? entry.parent_tool_call_id,
      description: entry.description ?? payload.description ?? null,
      result:
        terminal || error || output
          ? { output: output ?? entry.result?.output ?? null, error: error ?? entry.result?.error ?? null }
          : entry.result,
      finished_at: isTerminalStatus(status) ? (entry.finished_at ?? at) : entry.finished_at,
    };
  });
}

/** One event of the child's own stream: the progress line, and the outcome on `end`. */
export function applyChildEvent(
  current: readonly PanelEntry[],
  runId: string,
  event: RunEvent,
): PanelEntry[] {
  return current.map((entry) => {
    if (entry.run_id !== runId || event.seq <= entry.liveSeq) return entry;
    const next: PanelEntry = { ...entry, liveSeq: event.seq };
    switch (event.type) {
      case 'metadata':
        if (next.status === 'pending') next.status = 'running';
        if (!next.started_at) next.started_at = event.created_at;
        break;
      case 'message_delta': {
        next.pendingText = entry.pendingText + (str(event.payload.text) ?? '');
        if (next.pendingText.trim() !== '') next.latest = textLine(next.pendingText);
        break;
      }
      case 'model_retry':
      case 'model_fallback':
        // What the failed attempt streamed was dropped: the progress line says what happens instead.
        next.pendingText = '';
        next.latest = modelNotice(event);
        break;
      case 'context_compacted':
        next.latest = compactionNotice(event.payload.messages_summarised);
        break;
      // A child's own children's verdicts: the child's row shows its own verdict, from its parent's event.
      case 'verification':
        break;
      case 'tool_call':
        next.pendingText = '';
        next.latest = toolCallLine(str(event.payload.name) ?? 'tool', event.payload.args);
        break;
      // Usage is the server's figure (docs/usage.md): a settled call makes the panel read it again
      // (`settlesModelCall`), it is never added up here, where an event and a read could count a call twice.
      case 'step':
        next.pendingText = '';
        break;
      case 'approval_required':
        next.status = mergeStatus(entry.status, 'input_required');
        next.latest = `Waiting for approval: ${toolCallLine(str(event.payload.name) ?? 'tool', event.payload.args, 58)}`;
        break;
      case 'end': {
        const status = (str(event.payload.status) ?? 'completed') as RunStatus;
        next.status = mergeStatus(entry.status, status);
        next.result = {
          output:
            typeof event.payload.output === 'string' ? event.payload.output : (entry.result?.output ?? null),
          error: errorOf(event.payload.error) ?? entry.result?.error ?? null,
        };
        next.finished_at = entry.finished_at ?? event.created_at;
        if (event.payload.usage) next.usage = event.payload.usage;
        break;
      }
      case 'question_required': {
        // An expert reached by delegation is a main agent and may ask its user.
        const [first] = Array.isArray(event.payload.questions)
          ? (event.payload.questions as { question?: unknown }[])
          : [];
        next.status = mergeStatus(entry.status, 'input_required');
        next.latest = `Waiting for an answer: ${str(first?.question) ?? 'a question'}`;
        break;
      }
      case 'tool_result':
      case 'subagent_update':
      case 'error':
      case 'artifact':
        break;
    }
    return next;
  });
}

/**
 * A `verification` from the parent's stream: the judged child's card shows it. The child's `subagent_update`
 * (its start) always comes first on that stream, so the card exists.
 */
export function applyVerdict(
  current: readonly PanelEntry[],
  runId: string,
  verdict: VerdictView,
): PanelEntry[] {
  return current.map((entry) => (entry.run_id === runId ? { ...entry, verdict } : entry));
}

export function isActiveEntry(entry: PanelEntry): boolean {
  return !isTerminalStatus(entry.status);
}
