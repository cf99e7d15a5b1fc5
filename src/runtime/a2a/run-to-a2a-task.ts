import { TaskState, type Message, type Task, type TaskStatus } from '@a2a-js/sdk';
import type { Run, ToolApproval } from '../../core/records/run.js';
import type { Evidence } from '../../core/verification/evidence.js';
import { usageMetadata } from './a2a-delegation.js';
import { inputRequiredParts } from './a2a-human-input.js';
import { agentMessage, outputArtifact, userMessage, type MessageIds } from './a2a-parts.js';
import { toTaskState } from './a2a-task-state.js';

/** Request ids are per user; the prefix keeps A2A message ids apart from the console's own request ids. */
export const A2A_REQUEST_ID_PREFIX = 'a2a:';

export interface TaskView {
  /** Per A2A: unset = everything, 0 = no history, N = the N most recent messages. */
  historyLength?: number | undefined;
  /** Artifacts are left out (ListTasks without `includeArtifacts`). */
  withoutArtifacts?: boolean;
  /** An ended run's evidence, published in the metadata (not read for task lists). */
  evidence?: Evidence | undefined;
}

function ids(run: Run, suffix: string): MessageIds {
  return { messageId: `${run.id}:${suffix}`, taskId: run.id, contextId: run.conversation_id };
}

/** The client's own messageId of the message that started the task (its run's request id), when it has one. */
function inputMessageIds(run: Run): MessageIds {
  const own = run.request_id.startsWith(A2A_REQUEST_ID_PREFIX)
    ? run.request_id.slice(A2A_REQUEST_ID_PREFIX.length)
    : '';
  return own === '' ? ids(run, 'input') : { ...ids(run, 'input'), messageId: own };
}

/** What an A2A client is told while a run waits for a human: what waits, and how to answer over A2A. */
export function inputRequiredMessage(
  run: Run,
  pending: readonly ToolApproval[],
  messageId?: string,
): Message {
  const messageIds = messageId === undefined ? ids(run, 'status') : { ...ids(run, 'status'), messageId };
  return agentMessage(messageIds, inputRequiredParts(run.id, pending));
}

function statusMessage(run: Run, state: TaskState, pending: readonly ToolApproval[]): Message | undefined {
  if (state === TaskState.TASK_STATE_COMPLETED)
    return run.output ? agentMessage(ids(run, 'output'), run.output) : undefined;
  if (state === TaskState.TASK_STATE_FAILED || state === TaskState.TASK_STATE_CANCELED) {
    return agentMessage(ids(run, 'status'), run.error?.message ?? `The run ended as ${run.status}`);
  }
  if (state === TaskState.TASK_STATE_INPUT_REQUIRED) return inputRequiredMessage(run, pending);
  return undefined;
}

export function taskStatusOf(run: Run, pending: readonly ToolApproval[], timestamp?: string): TaskStatus {
  const state = toTaskState(run.status, pending.length > 0);
  return {
    state,
    message: statusMessage(run, state, pending),
    timestamp: timestamp ?? run.finished_at ?? run.updated_at,
  };
}

/**
 * A run as an A2A task: id = run id, contextId = conversation id. History is the message that started
 * the run (with the client's messageId) and, once there is one, the answer; the answer is also the task's
 * single `output` artifact.
 */
export function runToTask(run: Run, pending: readonly ToolApproval[], view: TaskView = {}): Task {
  const history: Message[] = [userMessage(inputMessageIds(run), run.input.message)];
  if (run.status === 'completed' && run.output) history.push(agentMessage(ids(run, 'output'), run.output));
  const limit = view.historyLength;
  return {
    id: run.id,
    contextId: run.conversation_id,
    status: taskStatusOf(run, pending),
    artifacts: run.output && view.withoutArtifacts !== true ? [outputArtifact(run.output)] : [],
    history: limit === undefined ? history : limit <= 0 ? [] : history.slice(-limit),
    metadata: {
      ...usageMetadata(run, view.evidence),
      troupe: {
        run_status: run.status,
        agent_id: run.agent_id,
        created_at: run.created_at,
        usage: run.usage,
        error: run.error,
      },
    },
  };
}
