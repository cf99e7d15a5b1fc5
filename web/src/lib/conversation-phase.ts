import type { Run, RunStatus } from '../api/types.ts';
import type { LiveRun } from './live-run.ts';

export interface ConversationPhaseInput {
  activeRunId: string | null;
  /** The followed run's stream, if it has started. */
  view: LiveRun | null;
  /** The stored record of the followed run. */
  activeRun: Run | null;
  cancelling: boolean;
  resuming: boolean;
}

/**
 * The status a conversation shows for its followed run, newer than the stored record: what its stream has
 * said (ended, waiting for the user, streaming), what the user just asked (cancel), or what the server
 * says (handed back and waiting to be resumed). Null while no run is followed.
 */
export function liveRunStatus({
  activeRunId,
  view,
  activeRun,
  cancelling,
  resuming,
}: ConversationPhaseInput): RunStatus | null {
  if (activeRunId === null || !view) return null;
  if (view.end) return view.end.status;
  if (view.approvals.length > 0 || (view.questions ?? []).length > 0) return 'input_required';
  if (cancelling) return 'cancel_requested';
  if (resuming) return 'pending';
  return view.lastSeq > 0 ? 'running' : (activeRun?.status ?? 'pending');
}

/** What the followed run waits for from the user: an answer first (a question), then an approval. */
export function waitingForUser(
  activeRunId: string | null,
  view: LiveRun | null,
): 'answer' | 'approval' | null {
  if (activeRunId === null || !view || view.end) return null;
  if ((view.questions ?? []).length > 0) return 'answer';
  return view.approvals.length > 0 ? 'approval' : null;
}
