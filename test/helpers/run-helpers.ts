import type { RunEvent } from '../../src/core/records/run-event.js';
import type { ThreadMessage } from '../../src/core/records/thread-message.js';

export async function collectEvents(iterable: AsyncIterable<RunEvent>): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of iterable) events.push(event);
  return events;
}

/** The tool results of a thread, by tool name, as the model saw them. */
export function toolResults(
  thread: readonly ThreadMessage[],
  toolName?: string,
): { name: string; text: string; isError: boolean }[] {
  const results: { name: string; text: string; isError: boolean }[] = [];
  for (const entry of thread) {
    if (entry.message.role !== 'tool') continue;
    for (const part of entry.message.content) {
      if (part.type !== 'tool-result' || (toolName && part.toolName !== toolName)) continue;
      const output = part.output;
      const text =
        output.type === 'text' || output.type === 'error-text'
          ? output.value
          : output.type === 'json' || output.type === 'error-json'
            ? JSON.stringify(output.value)
            : '';
      results.push({
        name: part.toolName,
        text,
        isError: output.type === 'error-text' || output.type === 'error-json',
      });
    }
  }
  return results;
}
