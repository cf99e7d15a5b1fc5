import type { RunError, TerminalRunStatus } from '../records/run.js';

/**
 * The error result a tool call gets when its run ends before the call returned (docs/runs.md): the model of the
 * conversation's next run reads it, so it says what happened and whether the call may have taken effect.
 */
export function toolCallClosingReason(status: TerminalRunStatus, error: RunError | null | undefined): string {
  switch (status) {
    case 'cancelled':
      return error?.type === 'execution_tree_closed'
        ? 'Tool call cancelled: the parent run ended and closed its execution tree before this call returned a result'
        : 'Tool call cancelled: the run was cancelled before it returned a result';
    case 'failed':
      return error?.type === 'worker_lease_expired'
        ? 'Tool call not completed: the worker executing the run stopped before this call returned a result; ' +
            'whether it took effect is unknown'
        : `Tool call not completed: the run failed before it returned a result (${error?.message ?? 'unknown error'})`;
    case 'interrupted':
      return 'Tool call not completed: the run stopped at its step limit before it returned a result';
    case 'completed':
      return 'Tool call not completed: the run ended before it returned a result';
  }
}
