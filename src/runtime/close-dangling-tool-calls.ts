import type { ModelMessage } from 'ai';
import type { Storage } from '../core/ports/storage.js';
import type { Run, RunStatus } from '../core/records/run.js';

const REASONS: Partial<Record<RunStatus, string>> = {
  cancelled: 'The run was cancelled before this tool call finished; it did not complete.',
  failed: 'The run failed before this tool call finished; it did not complete.',
  interrupted: 'The run was interrupted before this tool call finished; it did not complete.',
};

/**
 * Gives every tool call of `run` that has no result an error result, inside the caller's transaction (the
 * one writing the terminal status). A thread with a call and no result is a prompt no model accepts, so
 * without this a run cancelled while it waited (for an approval, an answer, a child) would break every
 * later run of its conversation.
 */
export async function closeDanglingToolCalls(tx: Storage, run: Run): Promise<void> {
  const reason = REASONS[run.status];
  if (reason === undefined) return;
  const own = (await tx.messages.list(run.thread_id)).filter((entry) => entry.run_id === run.id);
  const answered = new Set<string>();
  for (const entry of own) {
    if (entry.message.role !== 'tool') continue;
    for (const part of entry.message.content) if (part.type === 'tool-result') answered.add(part.toolCallId);
  }
  let step = 0;
  const results: ModelMessage[] = [];
  for (const entry of own) {
    if (entry.message.role !== 'assistant' || typeof entry.message.content === 'string') continue;
    for (const part of entry.message.content) {
      if (part.type !== 'tool-call' || answered.has(part.toolCallId)) continue;
      step = Math.max(step, entry.step);
      results.push({
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: part.toolCallId,
            toolName: part.toolName,
            output: { type: 'error-text', value: reason },
          },
        ],
      });
    }
  }
  if (results.length > 0) await tx.messages.append(run.thread_id, run.id, step, results);
}
