import type { ChatMessage } from '../../core/thread/chat-message.js';
import type { AnyTroupeTool } from '../../core/tools/troupe-tool.js';

/** The tools that act on a background child (docs/subagents.md#tools): useless before a `subagent_start`. */
export const LIFECYCLE_TOOLS: ReadonlySet<string> = new Set([
  'subagent_status',
  'subagent_await',
  'subagent_cancel',
  'subagent_steer',
]);

function startsInBackground(message: ChatMessage): boolean {
  return (
    message.role === 'assistant' &&
    Array.isArray(message.content) &&
    message.content.some((part) => part.type === 'tool-call' && part.toolName === 'subagent_start')
  );
}

/**
 * What a run's model calls are shown of the lifecycle tools: nothing until the prompt holds a `subagent_start`
 * call, then all four for the rest of the run (docs/subagents.md#when-the-tools-are-shown). The tool list thus
 * changes at most once in a run, at the step after the first background start, and stays byte-stable
 * otherwise; a hidden lifecycle tool the model calls anyway is refused by the tool-availability guard. One
 * gate per run attempt: it remembers what it has read, so each call reads only the messages added since.
 */
export function createLifecycleToolGate(): (
  tools: AnyTroupeTool[],
  messages: readonly ChatMessage[],
) => AnyTroupeTool[] {
  let shown = false;
  let read = 0;
  return (tools, messages) => {
    // A compacted prompt is shorter than the one read before: read it again from its start.
    if (messages.length < read) read = 0;
    for (; !shown && read < messages.length; read++) {
      const message = messages[read];
      if (message && startsInBackground(message)) shown = true;
    }
    return shown ? tools : tools.filter((tool) => !LIFECYCLE_TOOLS.has(tool.name));
  };
}
