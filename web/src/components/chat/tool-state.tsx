import type { ToolItem } from '../../lib/transcript-items.ts';

export type ToolState = 'running' | 'awaiting' | 'error' | 'rejected' | 'unknown' | 'done';

/** What a call without a result waits for: the user's answer (a question) or decision (an approval). */
export function waitingLabel(toolName: string): string {
  return toolName === 'ask_user_question' ? 'waiting for your answer' : 'awaiting approval';
}

const STATE_LABELS: Record<Exclude<ToolState, 'awaiting'>, string> = {
  running: 'running…',
  error: 'error',
  rejected: 'rejected by you',
  unknown: 'outcome unknown',
  done: 'done',
};

export function stateLabel(item: ToolItem, state: ToolState): string {
  return state === 'awaiting' ? waitingLabel(item.name) : STATE_LABELS[state];
}

/**
 * A call without a result is either running or — when a human has to decide first — waiting for that; a
 * call the user rejected is a decision, not a failure.
 */
export function toolState(item: ToolItem, awaiting: boolean): ToolState {
  if (item.result !== undefined) {
    if (item.result.outcome === 'unknown') return 'unknown';
    if (item.result.refusal?.code === 'approval_rejected') return 'rejected';
    return item.result.isError ? 'error' : 'done';
  }
  return awaiting ? 'awaiting' : 'running';
}

/** The reason the user gave with a rejection, shown under the call. */
export function RejectionNote({ item }: { item: ToolItem }) {
  const refusal = item.result?.refusal;
  const reason = refusal?.code === 'approval_rejected' ? refusal.comment : null;
  return (
    <p className="rejection-note" role="note">
      You rejected this call{reason ? `: “${reason}”.` : '.'} The agent was told and takes another way.
    </p>
  );
}

/** An external call the server stopped during: it was not run again, and may or may not have taken effect. */
export function UnknownOutcomeNote() {
  return (
    <p className="unknown-outcome-note" role="note">
      The server stopped while this call ran, so it was not run again: whether it took effect is unknown. The
      agent was told to check before repeating it.
    </p>
  );
}
