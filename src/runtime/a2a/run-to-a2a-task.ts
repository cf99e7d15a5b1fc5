import { TaskState, type Message, type Task, type TaskStatus } from '@a2a-js/sdk';
import type { Run, ToolApproval } from '../../core/records/run.js';
import { agentMessage, outputArtifact, userMessage, type MessageIds } from './a2a-parts.js';
import { toTaskState } from './a2a-task-state.js';

export interface TaskView {
  /** Per A2A: unset = everything, 0 = no history, N = the N most recent messages. */
  historyLength?: number | undefined;
}

function ids(run: Run, suffix: string): MessageIds {
  return { messageId: `${run.id}:${suffix}`, taskId: run.id, contextId: run.conversation_id };
}

/** What an A2A client is told while a run waits for a human: which calls, and where to decide them. */
export function approvalText(runId: string, pending: readonly ToolApproval[]): string {
  const calls = pending
    .map((approval) => `${approval.tool_name} (tool call ${approval.tool_call_id})`)
    .join(', ');
  return (
    `Waiting for a human decision on: ${calls || 'a tool call'}. Decide in the Troupe console or with ` +
    `POST /api/agent/runs/${runId}/approvals/{tool_call_id} and {"decision":"approve"|"reject"}; ` +
    'the task then continues.'
  );
}

function statusMessage(run: Run, state: TaskState, pending: readonly ToolApproval[]): Message | undefined {
  if (state === TaskState.TASK_STATE_COMPLETED)
    return run.output ? agentMessage(ids(run, 'output'), run.output) : undefined;
  if (state === TaskState.TASK_STATE_FAILED || state === TaskState.TASK_STATE_CANCELED) {
    return agentMessage(ids(run, 'status'), run.error?.message ?? `The run ended as ${run.status}`);
  }
  if (state === TaskState.TASK_STATE_INPUT_REQUIRED)
    return agentMessage(ids(run, 'status'), approvalText(run.id, pending));
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
 * the run and, once there is one, the answer; the answer is also the task's single `output` artifact.
 */
export function runToTask(run: Run, pending: readonly ToolApproval[], view: TaskView = {}): Task {
  const history: Message[] = [userMessage(ids(run, 'input'), run.input.message)];
  if (run.status === 'completed' && run.output) history.push(agentMessage(ids(run, 'output'), run.output));
  const limit = view.historyLength;
  return {
    id: run.id,
    contextId: run.conversation_id,
    status: taskStatusOf(run, pending),
    artifacts: run.output ? [outputArtifact(run.output)] : [],
    history: limit === undefined ? history : limit <= 0 ? [] : history.slice(-limit),
    metadata: {
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
