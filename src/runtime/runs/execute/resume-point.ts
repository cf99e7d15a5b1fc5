import type { ThreadMessage } from '../../../core/records/thread-message.js';
import type { ModelToolCall } from '../../../core/ports/model-stream.js';
import { contentText } from '../../../core/thread/content-text.js';

// Where a run continues from, read from its checkpointed thread (crash resume relies on the model's turn
// being checkpointed before its tools run, and each tool result as it lands).

/** Tool calls of the run's last model turn that have no result in the thread yet. */
export function unansweredToolCalls(
  thread: readonly ThreadMessage[],
  runId: string,
): { step: number; calls: ModelToolCall[] } | undefined {
  const own = thread.filter((entry) => entry.run_id === runId);
  const lastTurn = [...own].reverse().find((entry) => entry.message.role === 'assistant');
  if (!lastTurn || typeof lastTurn.message.content === 'string') return undefined;
  const answered = new Set<string>();
  for (const entry of own) {
    if (entry.seq > lastTurn.seq && entry.message.role === 'tool') {
      for (const part of entry.message.content)
        if (part.type === 'tool-result') answered.add(part.toolCallId);
    }
  }
  const calls: ModelToolCall[] = [];
  for (const part of lastTurn.message.content) {
    if (part.type === 'tool-call' && !answered.has(part.toolCallId)) {
      calls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
    }
  }
  return calls.length > 0 ? { step: lastTurn.step, calls } : undefined;
}

/** The run's final answer when its last checkpointed message is a model turn without tool calls. */
export function finalAnswerOf(thread: readonly ThreadMessage[], runId: string): string | undefined {
  const last = [...thread].reverse().find((entry) => entry.run_id === runId);
  if (last?.message.role !== 'assistant' || last.step < 1) return undefined;
  const { content } = last.message;
  if (typeof content !== 'string' && content.some((part) => part.type === 'tool-call')) return undefined;
  return contentText(content);
}
