import { TaskState } from '@a2a-js/sdk';
import type { RunStatus } from '../../core/records/run.js';

/**
 * A Troupe run status as an A2A task state (README "A2A"). `interrupted` (the step limit, or a lost
 * worker that could not resume) has no A2A twin: it ends the task without the asked-for answer, which is
 * what `failed` means to a client. `cancel_requested` is still working until the worker stops.
 * A running run with a pending approval is already waiting for a human, so it is `input-required` too.
 */
export function toTaskState(status: RunStatus, awaitingApproval = false): TaskState {
  switch (status) {
    case 'pending':
      return TaskState.TASK_STATE_SUBMITTED;
    case 'running':
      return awaitingApproval ? TaskState.TASK_STATE_INPUT_REQUIRED : TaskState.TASK_STATE_WORKING;
    case 'input_required':
      return TaskState.TASK_STATE_INPUT_REQUIRED;
    case 'cancel_requested':
      return TaskState.TASK_STATE_WORKING;
    case 'completed':
      return TaskState.TASK_STATE_COMPLETED;
    case 'failed':
    case 'interrupted':
      return TaskState.TASK_STATE_FAILED;
    case 'cancelled':
      return TaskState.TASK_STATE_CANCELED;
  }
}

const TERMINAL_TASK_STATES: ReadonlySet<TaskState> = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

export function isTerminalTaskState(state: TaskState): boolean {
  return TERMINAL_TASK_STATES.has(state);
}
