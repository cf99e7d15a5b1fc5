import type { ToolCallResult } from '../ports/agent-middleware.js';
import { ToolRefusal } from './tool-refusal.js';

/**
 * The result of a call to a tool the run does not have, did not show the model, or hides from subagents:
 * `text` for the model, a `tool_not_available` refusal for clients (docs/runs.md#events).
 */
export function toolNotAvailable(tool: string, text: string): Required<Omit<ToolCallResult, 'outcome'>> {
  return { output: text, isError: true, refusal: { code: 'tool_not_available', reason: text, tool } };
}

/** The same refusal from inside a tool, for tools that refuse a caller themselves (a third line of defence). */
export function toolNotAvailableRefusal(tool: string, text: string): ToolRefusal {
  return new ToolRefusal(text, toolNotAvailable(tool, text).refusal, 'tool_not_found');
}
