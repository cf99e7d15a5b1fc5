import type { ChatMessage } from '../thread/chat-message.js';
import type { ModelCallUsage } from '../runs/run-usage.js';

/** One message of a thread. The messages a step appends are written together: that is the checkpoint. */
export interface ThreadMessage {
  thread_id: string;
  seq: number;
  run_id: string | null;
  /** Step number inside its run (0 = the run's input); resuming a run continues after its last step. */
  step: number;
  message: ChatMessage;
  created_at: string;
  /** A model's turn: what the call that produced it reported (docs/usage.md); null for other messages. */
  usage: ModelCallUsage | null;
}
