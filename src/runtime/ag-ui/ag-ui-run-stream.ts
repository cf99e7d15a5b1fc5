import { EventType } from '@ag-ui/core';
import type { Storage } from '../../core/ports/storage.js';
import type { RunEventOf, SubagentUpdatePayload } from '../../core/records/run-event.js';
import { isTerminalStatus, type Run, type ToolApproval } from '../../core/records/run.js';
import type { Actor } from '../../core/records/user.js';
import type { RunServiceApi } from '../runs/run-service-api.js';
import { toInterrupt } from './ag-ui-interrupts.js';
import { createEventQueue } from './event-queue.js';
import { createRunProjection, type AgUiEvent } from './run-event-projection.js';

export interface AgUiRunStreamOptions {
  actor: Actor;
  storage: Storage;
  runs: RunServiceApi;
  /** The Troupe run this AG-UI run projects, and the events already told (a resume goes on after them). */
  run: Run;
  afterSeq: number;
  /** The AG-UI ids the client chose (`RunAgentInput.threadId`, `.runId`). */
  threadId: string;
  runId: string;
  /** The client's state: Troupe's own goes under its `troupe` key. */
  state: unknown;
  signal: AbortSignal;
  /** Where an unexpected failure of the stream goes (the log); the client gets a bare RUN_ERROR. */
  onError: (error: unknown) => void;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

interface Child {
  done: Promise<void>;
  stop: AbortController;
}

/**
 * One AG-UI run over SSE as the projection of a Troupe run (README "AG-UI"): RUN_STARTED, a STATE_SNAPSHOT
 * with the run under `troupe`, the run's text, tool calls and steps, then RUN_FINISHED (success, cancelled,
 * or an interrupt when it waits for a human) or RUN_ERROR. Child runs (subagents, delegations) are AG-UI
 * subagents: SUBAGENT_STARTED with `subagentRunId` = the child's run id and `metadata.parentRunId` = the
 * run that started it (the AG-UI run id for the top-level run), their own events attributed to them, and
 * SUBAGENT_FINISHED or SUBAGENT_ERROR; STATE_DELTA keeps `troupe.subagents` current.
 */
export function agUiRunStream(options: AgUiRunStreamOptions): AsyncGenerator<AgUiEvent> {
  const { actor, storage, runs, run, threadId, runId } = options;
  const queue = createEventQueue<AgUiEvent>();
  const children = new Map<string, Child>();
  const stopAll = new AbortController();
  const stopped = AbortSignal.any([options.signal, stopAll.signal]);

  const troupe = { run_id: run.id, conversation_id: run.conversation_id, status: run.status, subagents: {} };
  queue.push(
    {
      type: EventType.RUN_STARTED,
      threadId,
      runId,
      metadata: { troupe: { run_id: run.id, conversation_id: run.conversation_id } },
    },
    {
      type: EventType.STATE_SNAPSHOT,
      snapshot: { ...(isObject(options.state) ? options.state : {}), troupe },
    },
  );

  const stateDelta = (op: 'add' | 'replace', path: string, value: unknown): AgUiEvent => ({
    type: EventType.STATE_DELTA,
    delta: [{ op, path: `/troupe${path}`, value }],
  });

  /** A child's status change on its parent's stream: its start (once) and its status in the state. */
  function sawChild(payload: SubagentUpdatePayload, parent: string | undefined, parentRunId: string): void {
    const childId = payload.run_id;
    if (children.has(childId)) {
      queue.push(stateDelta('replace', `/subagents/${childId}/status`, payload.status));
      return;
    }
    const name = payload.slug || (payload.kind === 'delegation' ? 'delegation' : 'subagent');
    queue.push(
      {
        type: EventType.SUBAGENT_STARTED,
        subagentRunId: childId,
        name,
        ...(payload.description !== '' ? { description: payload.description } : {}),
        ...(parent === undefined ? {} : { parentSubagentRunId: parent }),
        ...(payload.parent_tool_call_id !== null ? { parentToolCallId: payload.parent_tool_call_id } : {}),
        metadata: { runId: childId, parentRunId, kind: payload.kind },
      },
      stateDelta('add', `/subagents/${childId}`, { kind: payload.kind, name, status: payload.status }),
    );
    const stop = new AbortController();
    children.set(childId, { stop, done: followChild(childId, AbortSignal.any([stopped, stop.signal])) });
  }

  async function followChild(childId: string, signal: AbortSignal): Promise<void> {
    const projection = createRunProjection(childId, childId);
    let ended = false;
    try {
      for await (const event of await runs.streamEvents(actor, childId, 0, signal)) {
        if (event.type === 'subagent_update') sawChild(event.payload, childId, childId);
        queue.push(...projection.next(event));
        if (event.type === 'end') {
          ended = true;
          const child = await storage.runs.get(childId);
          if (child?.status === 'completed') {
            queue.push({
              type: EventType.SUBAGENT_FINISHED,
              subagentRunId: childId,
              ...(child.output ? { result: child.output } : {}),
              outcome: { type: 'success' },
            });
          } else {
            queue.push({
              type: EventType.SUBAGENT_ERROR,
              subagentRunId: childId,
              message: child?.error?.message ?? `The ${child?.status ?? 'child'} run did not complete`,
              code: child?.error?.type ?? child?.status ?? 'failed',
            });
          }
          return;
        }
      }
    } catch {
      // Stopped (the stream ends) or unreadable: closed as suspended below, the run is not failed for it.
    } finally {
      if (!ended) {
        // Still running when this stream ends (a background child): its segment of this stream ends here.
        queue.push(...projection.close(), {
          type: EventType.SUBAGENT_FINISHED,
          subagentRunId: childId,
          outcome: { type: 'suspended' },
          metadata: { troupe_status: 'running' },
        });
      }
    }
  }

  /** Ends every child segment still open, then the run: children that ended are read to their end first. */
  async function closeChildren(): Promise<void> {
    for (const [childId, child] of children) {
      const record = await storage.runs.get(childId);
      if (!record || !isTerminalStatus(record.status)) child.stop.abort();
    }
    await Promise.all([...children.values()].map((child) => child.done));
  }

  async function finishRun(): Promise<void> {
    const final = await runs.getRun(actor, run.id);
    const usage = final.usage
      ? [
          {
            model: final.model_spec,
            inputTokens: final.usage.input_tokens,
            outputTokens: final.usage.output_tokens,
            totalTokens: final.usage.total_tokens,
          },
        ]
      : [];
    queue.push(stateDelta('replace', '/status', final.status));
    if (final.status === 'completed') {
      queue.push({
        type: EventType.RUN_FINISHED,
        threadId,
        runId,
        ...(final.output ? { result: final.output } : {}),
        outcome: { type: 'success' },
        usage,
      });
    } else if (final.status === 'cancelled') {
      queue.push({ type: EventType.RUN_FINISHED, threadId, runId, outcome: { type: 'cancelled' }, usage });
    } else {
      queue.push({
        type: EventType.RUN_ERROR,
        message: final.error?.message ?? `The run ended ${final.status}`,
        code: final.error?.type ?? final.status,
        usage,
      });
    }
  }

  /** The run's pending inputs when `event` announces one of them: a wait that ends this AG-UI run. */
  async function stillWaiting(
    event: RunEventOf<'approval_required' | 'question_required'>,
  ): Promise<ToolApproval[] | undefined> {
    const inputs = await storage.approvals.listForRun(run.id);
    const pending = inputs.filter((input) => input.status === 'pending');
    // A wait decided meanwhile (or replayed by a resume) is history, not a reason to stop.
    return pending.some((input) => input.tool_call_id === event.payload.tool_call_id) ? pending : undefined;
  }

  async function followRoot(): Promise<void> {
    const projection = createRunProjection(run.id);
    try {
      for await (const event of await runs.streamEvents(actor, run.id, options.afterSeq, stopped)) {
        if (event.type === 'subagent_update') sawChild(event.payload, undefined, runId);
        if (event.type === 'approval_required' || event.type === 'question_required') {
          const pending = await stillWaiting(event);
          if (pending) {
            queue.push(...projection.close());
            await closeChildren();
            queue.push(stateDelta('replace', '/status', 'input_required'), {
              type: EventType.RUN_FINISHED,
              threadId,
              runId,
              outcome: { type: 'interrupt', interrupts: pending.map(toInterrupt) },
            });
            return;
          }
        }
        queue.push(...projection.next(event));
        if (event.type === 'end') break;
      }
      if (options.signal.aborted) return;
      // At `end`, or a stream that had nothing left to tell (the run had ended already).
      queue.push(...projection.close());
      await closeChildren();
      await finishRun();
    } catch (error) {
      if (options.signal.aborted) return;
      queue.push({
        type: EventType.RUN_ERROR,
        message: 'The event stream of the run failed',
        code: 'internal',
      });
      throw error;
    } finally {
      stopAll.abort();
      queue.close();
    }
  }

  const root = followRoot();
  return (async function* () {
    try {
      yield* queue.drain();
    } finally {
      stopAll.abort();
      await root;
    }
  })();
}
