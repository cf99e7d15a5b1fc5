import type { Storage } from '../../../core/ports/storage.js';
import type { Run, TerminalRunStatus } from '../../../core/records/run.js';
import { toolCallClosingReason } from '../../../core/thread/tool-call-closing-reason.js';
import { closingToolMessage, openToolCallsAtEnd } from '../../../core/thread/tool-call-pairs.js';
import { lineageOf } from '../../events/lineage-of.js';
import type { PendingEvent } from '../../events/run-emitter.js';

/**
 * Gives every tool call the run left without a result an error result saying why. Called inside the
 * transaction that makes the run terminal, so no reader ever sees an ended run whose thread would make the
 * conversation's next prompt invalid. Returns a `tool_result` event per call, for the caller to append with
 * the run's `end` in one insert.
 */
export async function closeOpenToolCalls(
  tx: Storage,
  run: Run & { status: TerminalRunStatus },
): Promise<PendingEvent[]> {
  // A run completes only on a model turn without tool calls, and each earlier call's result is checkpointed
  // before the next model call: a completed run has no open call, so its thread need not be read.
  if (run.status === 'completed') return [];
  const own = (await tx.messages.list(run.thread_id)).filter((entry) => entry.run_id === run.id);
  const open = openToolCallsAtEnd(own.map((entry) => entry.message));
  if (open.length === 0) return [];
  const step = [...own].reverse().find((entry) => entry.message.role === 'assistant')?.step ?? 0;
  const reason = toolCallClosingReason(run.status, run.error);
  await tx.messages.append(run.thread_id, run.id, step, [closingToolMessage(open, reason)]);
  return open.map((call) => ({
    type: 'tool_result' as const,
    payload: {
      ...lineageOf(run),
      step,
      tool_call_id: call.toolCallId,
      name: call.toolName,
      output: reason,
      is_error: true,
      closed_by_run_end: true,
    },
  }));
}
