import type { ModelCallUsage } from '../runs/run-usage.js';
import type { ThreadMessage } from './thread-message.js';

/** One tool call a model call asked for, with its result once the thread has one. */
export interface InspectedToolCall {
  tool_call_id: string;
  name: string;
  args: unknown;
  result: { output: unknown; is_error: boolean } | null;
}

/**
 * What one model call of a run was sent and answered (docs/usage.md, "Inspecting a call"). The messages are
 * exact: the run's thread before the call's turn, as stored. Prompts are not stored per call, so the system
 * prompt and tools are rebuilt from the agent as it is now; `note` says what that leaves out.
 */
export interface InspectedStep {
  run_id: string;
  step: number;
  prompt: {
    messages: ThreadMessage[];
    system_prompt: string | null;
    tools: string[];
    /** The agent was changed after this call: its prompt and tools may not be what the call was sent. */
    agent_changed_since: boolean;
    note: string;
  };
  /** The model's turn; null while the call runs or when it never answered and kept nothing. */
  completion: ThreadMessage | null;
  /** The turn is the text a call streamed before its run stopped (it never answered). */
  partial: boolean;
  usage: ModelCallUsage | null;
  tool_calls: InspectedToolCall[];
}
