import { TaskState, type Artifact, type StreamResponse, type TaskStatus } from '@a2a-js/sdk';
import type { RunEvent } from '../../core/records/run-event.js';
import type { Run, ToolApproval } from '../../core/records/run.js';
import type { Evidence } from '../../core/verification/evidence.js';
import { usageMetadata } from './a2a-delegation.js';
import { agentMessage, outputArtifact } from './a2a-parts.js';
import { inputRequiredMessage, taskStatusOf } from './run-to-a2a-task.js';

export interface RunSnapshot {
  run: Run;
  pending: ToolApproval[];
  /** The ended run's evidence, for the last update's metadata. */
  evidence?: Evidence | undefined;
}

export interface TranslateOptions {
  run: Run;
  /** The state the client was last told (the task snapshot that opened the stream). */
  state: TaskState;
  events: AsyncIterable<RunEvent>;
  /** The run's pending approvals now (an `approval_required` event names the tool, not the call id). */
  pending: () => Promise<ToolApproval[]>;
  /** The run as it ended, read when its `end` arrives. */
  finish: () => Promise<RunSnapshot>;
}

export function statusUpdate(
  run: Run,
  status: TaskStatus,
  metadata?: Record<string, unknown>,
): StreamResponse {
  const value = { taskId: run.id, contextId: run.conversation_id, status, metadata };
  return { payload: { $case: 'statusUpdate', value } };
}

function artifactUpdate(run: Run, artifact: Artifact, append: boolean, lastChunk: boolean): StreamResponse {
  const value = {
    taskId: run.id,
    contextId: run.conversation_id,
    artifact,
    append,
    lastChunk,
    metadata: undefined,
  };
  return { payload: { $case: 'artifactUpdate', value } };
}

/**
 * A run's events as A2A stream events, ending with the terminal status after the run's `end`:
 * - text deltas (already batched by the run's emitter) stream into the `output` artifact; a new model
 *   turn replaces it (`append: false`), and at the end the final answer replaces it once more with
 *   `lastChunk: true`, so a streaming client ends with exactly what `GetTask` returns;
 * - tool calls are `working` updates naming the tool; a pending approval is `input-required` naming the
 *   calls, and the stream stays open: once a human decides, the run resumes and the updates continue.
 */
export async function* translateRunEvents(options: TranslateOptions): AsyncGenerator<StreamResponse> {
  const { run } = options;
  let state = options.state;
  let turnOpen = false;
  const message = (event: RunEvent, text: string) =>
    agentMessage(
      { messageId: `${run.id}:event:${event.seq}`, taskId: run.id, contextId: run.conversation_id },
      text,
    );
  const working = (event: RunEvent, text?: string): StreamResponse => {
    state = TaskState.TASK_STATE_WORKING;
    return statusUpdate(run, {
      state,
      message: text === undefined ? undefined : message(event, text),
      timestamp: event.created_at,
    });
  };

  for await (const event of options.events) {
    switch (event.type) {
      case 'metadata':
      case 'tool_result':
        // A worker (re)started the run, or a decided call ran: whatever the client saw, it is working now.
        if (state !== TaskState.TASK_STATE_WORKING) yield working(event);
        break;
      case 'message_delta': {
        const text = event.payload.text;
        if (text === '') break;
        if (state !== TaskState.TASK_STATE_WORKING) yield working(event);
        yield artifactUpdate(run, outputArtifact(text), turnOpen, false);
        turnOpen = true;
        break;
      }
      case 'tool_call':
        turnOpen = false;
        yield working(event, `Using the ${event.payload.name || 'a'} tool`);
        break;
      // A retried model call's next text replaces the failed attempt's, which the artifact holds.
      case 'model_retry':
      case 'model_fallback':
      case 'step':
        turnOpen = false;
        break;
      // Bookkeeping of the run's context and of its children's verdicts: nothing an A2A client is told.
      case 'context_compacted':
      case 'verification':
        break;
      // A question waits for a human like an approval does; both are answered by a message to the task.
      case 'approval_required':
      case 'question_required':
        state = TaskState.TASK_STATE_INPUT_REQUIRED;
        yield statusUpdate(run, {
          state,
          message: inputRequiredMessage(run, await options.pending(), `${run.id}:event:${event.seq}`),
          timestamp: event.created_at,
        });
        break;
      case 'end': {
        const final = await options.finish();
        if (final.run.output) yield artifactUpdate(run, outputArtifact(final.run.output), false, true);
        // The last update says what the task used and did, for a delegating Troupe (README "Remote A2A experts").
        yield statusUpdate(
          run,
          taskStatusOf(final.run, final.pending),
          usageMetadata(final.run, final.evidence),
        );
        return;
      }
      case 'error': // always followed by `end`, which carries the outcome
      case 'subagent_update': // children are the console's business; the task is the top-level run
      case 'artifact': // a presented workdir file; downloads stay on Troupe's API (owner only)
        break;
    }
  }
}
