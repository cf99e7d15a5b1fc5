import { SendMessageRequest, TaskState, type StreamResponse } from '@a2a-js/sdk';
import { ServiceParameters, withA2AExtensions, type Client } from '@a2a-js/sdk/client';
import { TroupeError, isTroupeError } from '../../core/errors.js';
import type { Storage } from '../../core/ports/storage.js';
import type { Agent } from '../../core/records/agent.js';
import type { Run } from '../../core/records/run.js';
import { DELEGATION_EXTENSION_URI } from '../../core/remote-experts/delegation-context.js';
import {
  applyStreamEvent,
  emptyRemoteTask,
  remoteAnswer,
  remoteFailureText,
  TERMINAL_TASK_STATES,
  WAITING_TASK_STATES,
  type RemoteTaskView,
} from './remote-task-view.js';
import type { AgentLoopOutcome } from '../agent-loop/agent-loop.js';
import { abortKindOf, type RunAbortError } from '../../core/runs/run-abort.js';
import type { RemoteA2AConnector } from '../../core/ports/remote-a2a-connector.js';
import { delegationContext } from './delegation-context.js';
import type { RemoteExpertDeps, RemoteExpertRun } from './remote-expert-run.js';
import { findRemoteTask } from './find-remote-task.js';
import { REMOTE_TASK_TOOL } from '../../core/verification/remote-evidence.js';
import { remoteReport } from './remote-report.js';

/** How long a cancel may take to reach the remote agent before the run ends anyway. */
const CANCEL_GRACE_MS = 5_000;
/** Streams that close before the task ends are re-subscribed; a remote that keeps doing so is given up on. */
const MAX_RESUBSCRIBES = 20;

function failure(message: string): TroupeError {
  return new TroupeError('remote_task_failed', message);
}

/**
 * Plays a run of a remote A2A expert: the run's message becomes a remote task, whose stream is folded
 * into the run (output text as `message_delta`, the task itself as one tool span named
 * `a2a_remote_task`, recorded as soon as its id is known). A run resumed after a crash or a shutdown finds
 * that id in its events and subscribes to the same task instead of sending the message again. A cancel
 * of the run cancels the remote task; a remote that fails, or waits for input a delegated task cannot
 * give, ends the run failed with the remote's reason, which the delegating parent reads as its result.
 */
export async function driveRemoteExpert(
  deps: RemoteExpertDeps,
  work: RemoteExpertRun,
): Promise<AgentLoopOutcome> {
  const { run, agent, signal } = work;
  const timeoutMs = agent.config.a2a?.timeout_ms ?? work.timeoutMs;
  const deadline = AbortSignal.timeout(timeoutMs);
  const deadlineAt = Date.now() + timeoutMs;
  const requestSignal = AbortSignal.any([signal, deadline]);
  const view = emptyRemoteTask();
  const known = await findRemoteTask(deps.storage, run.id);
  let client: Client | undefined;
  try {
    client = await connect(deps.connector, agent, requestSignal);
    if (known) {
      view.taskId = known.taskId;
      view.contextId = known.contextId;
      await follow(
        view,
        work,
        client.resubscribeTask({ tenant: '', id: known.taskId }, { signal: requestSignal }),
        true,
      );
    } else {
      const request = SendMessageRequest.fromJSON({
        tenant: '',
        message: {
          // The run id makes a repeated send recognisable to a remote that de-duplicates messages.
          messageId: run.id,
          role: 'ROLE_USER',
          parts: [{ text: run.input.message }],
          ...(await previousContext(deps.storage, run)),
          metadata: { [DELEGATION_EXTENSION_URI]: await delegationContext(deps, work, deadlineAt) },
        },
        configuration: { returnImmediately: false },
      });
      const serviceParameters = ServiceParameters.createFrom(
        undefined,
        withA2AExtensions(DELEGATION_EXTENSION_URI),
      );
      await follow(
        view,
        work,
        client.sendMessageStream(request, { signal: requestSignal, serviceParameters }),
        false,
      );
    }
    for (let attempt = 0; !settled(view) && view.taskId !== undefined; attempt += 1) {
      // The stream closed before the task ended: ask where it is, and listen again while it works.
      await absorb(view, work, {
        payload: {
          $case: 'task',
          value: await client.getTask(
            { tenant: '', id: view.taskId, historyLength: 0 },
            { signal: requestSignal },
          ),
        },
      });
      if (settled(view)) break;
      if (attempt >= MAX_RESUBSCRIBES)
        throw failure('The remote expert keeps closing the task stream before the task ends');
      await follow(
        view,
        work,
        client.resubscribeTask({ tenant: '', id: view.taskId }, { signal: requestSignal }),
        true,
      );
    }
  } catch (error) {
    const kind = abortKindOf(signal);
    if (kind === 'cancel' || (deadline.aborted && !signal.aborted)) await cancelRemote(client, view);
    if (kind !== undefined) throw signal.reason as RunAbortError;
    if (deadline.aborted) throw failure('The remote expert did not finish in time; its task was cancelled');
    throw isTroupeError(error) ? error : unreachable(error);
  }
  // A task waiting for input would wait forever for an answer nobody here can give.
  if (WAITING_TASK_STATES.has(view.state)) await cancelRemote(client, view);
  return finish(deps.storage, view, work);
}

function settled(view: RemoteTaskView): boolean {
  return (
    TERMINAL_TASK_STATES.has(view.state) || WAITING_TASK_STATES.has(view.state) || view.reply !== undefined
  );
}

async function connect(
  connector: RemoteA2AConnector<Client>,
  agent: Agent,
  signal: AbortSignal,
): Promise<Client> {
  try {
    return await connector.connect(agent, signal);
  } catch (error) {
    if (isTroupeError(error)) throw error;
    throw unreachable(error);
  }
}

/**
 * A transport failure, worded without the remote's body (docs/egress-and-secrets.md: a non-admin's run never echoes what a
 * remote server answered to a failed call).
 */
function unreachable(error: unknown): TroupeError {
  const detail = isJsonRpcError(error)
    ? `JSON-RPC error ${String((error as { envelopeCode: number }).envelopeCode)}`
    : 'the request failed';
  return new TroupeError('remote_expert_unavailable', `The remote expert could not be reached: ${detail}`, {
    cause: error,
  });
}

async function follow(
  view: RemoteTaskView,
  work: RemoteExpertRun,
  stream: AsyncGenerator<StreamResponse>,
  resubscribed: boolean,
): Promise<void> {
  try {
    for await (const event of stream) {
      await absorb(view, work, event);
      if (settled(view)) return;
    }
  } catch (error) {
    // A task that ended between our last look and the subscription cannot be subscribed to: GetTask says how.
    if (resubscribed && !work.signal.aborted && isJsonRpcError(error)) return;
    throw error;
  }
}

function isJsonRpcError(error: unknown): boolean {
  return typeof (error as { envelopeCode?: unknown } | null)?.envelopeCode === 'number';
}

async function absorb(view: RemoteTaskView, work: RemoteExpertRun, event: StreamResponse): Promise<void> {
  const change = applyStreamEvent(view, event);
  if (change.identified && view.taskId !== undefined) {
    await work.emitter.emit('tool_call', {
      tool_call_id: `a2a:${view.taskId}`,
      name: REMOTE_TASK_TOOL,
      step: 1,
      args: {
        task_id: view.taskId,
        context_id: view.contextId ?? null,
        card_url: work.agent.config.a2a?.card_url ?? null,
      },
    });
  }
  if (change.delta !== undefined) work.emitter.delta(change.delta);
}

async function cancelRemote(client: Client | undefined, view: RemoteTaskView): Promise<void> {
  if (!client || view.taskId === undefined || TERMINAL_TASK_STATES.has(view.state)) return;
  try {
    await client.cancelTask(
      { tenant: '', id: view.taskId, metadata: undefined },
      { signal: AbortSignal.timeout(CANCEL_GRACE_MS) },
    );
  } catch {
    // Best effort: the task may have ended meanwhile, or the remote may be gone; the run ends either way.
  }
}

/** The remote's reported usage joins the run's own and is charged to its budget, so the tree counts it. */
async function countUsage(storage: Storage, view: RemoteTaskView, work: RemoteExpertRun): Promise<void> {
  if (!view.usage) return;
  work.recordUsage(view.usage);
  await storage.budgets.settle(work.run.id, {
    tokens: view.usage.total_tokens,
    model_calls: view.usage.model_calls,
  });
}

async function finish(
  storage: Storage,
  view: RemoteTaskView,
  work: RemoteExpertRun,
): Promise<AgentLoopOutcome> {
  const { run, emitter } = work;
  await countUsage(storage, view, work);
  const completed = view.reply !== undefined || view.state === TaskState.TASK_STATE_COMPLETED;
  const text = completed ? remoteAnswer(view) : remoteFailureText(view);
  // A direct reply has no task: its span is recorded now, so the run's evidence still says it was remote.
  if (view.taskId === undefined && view.reply !== undefined) {
    await emitter.emit('tool_call', {
      tool_call_id: `a2a:message:${run.id}`,
      name: REMOTE_TASK_TOOL,
      step: 1,
      args: {
        task_id: '',
        context_id: view.contextId ?? null,
        card_url: work.agent.config.a2a?.card_url ?? null,
      },
    });
  }
  const toolCallId = view.taskId !== undefined ? `a2a:${view.taskId}` : `a2a:message:${run.id}`;
  if (view.taskId !== undefined || view.reply !== undefined) {
    await emitter.emit('tool_result', {
      tool_call_id: toolCallId,
      name: REMOTE_TASK_TOOL,
      step: 1,
      is_error: !completed,
      ...(completed ? {} : { result: text }),
      remote_evidence: remoteReport(view),
    });
  }
  if (!completed) throw failure(text);
  await emitter.flush();
  // The answer joins the thread like a model's final turn, so the conversation reads as one.
  await storage.messages.append(run.thread_id, run.id, 1, [{ role: 'assistant', content: text }]);
  return { kind: 'completed', output: text };
}

/** A follow-up in the same conversation continues the remote context of the run before it. */
async function previousContext(storage: Storage, run: Run): Promise<{ contextId?: string }> {
  const runs = await storage.runs.listByConversation(run.conversation_id);
  for (const earlier of runs) {
    if (earlier.id === run.id) continue;
    const task = await findRemoteTask(storage, earlier.id);
    if (task?.contextId) return { contextId: task.contextId };
  }
  return {};
}
