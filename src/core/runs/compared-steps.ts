import type { ComparedStep } from '../records/run-comparison.js';
import type { RunView } from '../records/run.js';
import type { ThreadMessage } from '../records/thread-message.js';
import { contentText } from '../thread/content-text.js';

const STEP_TEXT_CHARS = 500;

/**
 * The run's model turns with their tool calls, read from its thread (a result is found by its call id). A fork
 * that re-runs its source without a new input holds the source's steps up to its fork point as its own (and
 * none of the source run's messages under the source's id, which a fork with an input keeps as history): those
 * steps are marked copied. Told by step, not by time: a copied step and the run's start can share a millisecond.
 */
export function comparedSteps(
  run: Pick<RunView, 'id' | 'forked_from'>,
  thread: readonly ThreadMessage[],
): ComparedStep[] {
  const own = thread.filter((entry) => entry.run_id === run.id);
  const fork = run.forked_from;
  // The last copied step; 0 copies none (a model turn is step 1 or later).
  const copiedThrough =
    fork !== null && !thread.some((entry) => entry.run_id === fork.run_id) ? fork.step : 0;
  const outcome = new Map<string, boolean>();
  for (const entry of own) {
    if (entry.message.role !== 'tool') continue;
    for (const part of entry.message.content)
      if (part.type === 'tool-result') outcome.set(part.toolCallId, part.output.type.startsWith('error'));
  }
  return own
    .filter((entry) => entry.message.role === 'assistant' && entry.step >= 1)
    .map((entry) => {
      const { content } = entry.message;
      const calls = typeof content === 'string' ? [] : content.filter((part) => part.type === 'tool-call');
      return {
        step: entry.step,
        text: contentText(content).slice(0, STEP_TEXT_CHARS),
        tool_calls: calls.map((call) => ({
          name: call.toolName,
          is_error: outcome.get(call.toolCallId) ?? null,
        })),
        input_tokens: entry.usage?.input_tokens ?? null,
        output_tokens: entry.usage?.output_tokens ?? null,
        copied: entry.step <= copiedThrough,
      };
    });
}
