import type { ResolvedModel } from '../../core/ports/model-provider.js';
import type { ModelToolCall } from '../../core/ports/model-stream.js';
import type { Agent } from '../../core/records/agent.js';
import type { Run } from '../../core/records/run.js';
import type { ModelCallUsage } from '../../core/runs/run-usage.js';
import type { ChatMessage } from '../../core/thread/chat-message.js';
import type { AnyTroupeTool } from '../../core/tools/troupe-tool.js';
import type { PendingEvent, RunEmitter } from '../events/run-emitter.js';
import type { ComposedMiddleware } from '../middleware/compose-middleware.js';

export interface AgentLoopOptions {
  run: Run;
  agent: Agent;
  model: ResolvedModel;
  system: string;
  /** The thread so far, ending with the input (or with what was checkpointed before a resume). */
  messages: ChatMessage[];
  /** Every tool registered for the run, by name; what the model sees is decided by middleware. */
  tools: ReadonlyMap<string, AnyTroupeTool>;
  chain: ComposedMiddleware;
  emitter: RunEmitter;
  abortSignal: AbortSignal;
  workdir: string;
  /** Lets tools wait on other runs without holding the executor slot (see WorkerSlots). */
  suspend?: <T>(work: () => Promise<T>) => Promise<T>;
  /** First step to execute: 1 for a new run, last checkpointed step + 1 when resuming. */
  firstStep: number;
  /**
   * Tool calls of a checkpointed step that have no result yet (a resume after a crash or an approval), and
   * which of them have a `started` mark: those are external calls that are not run again
   * (docs/effects-and-forks.md#the-journal).
   */
  pending?: { step: number; calls: ModelToolCall[]; started?: ReadonlySet<string> };
  maxSteps: number;
  /**
   * Persists messages of a step atomically (the model's turn, then each tool result as it lands), with the
   * events that announce them and the text streamed before them, in one transaction. A model's turn comes
   * with the usage of the call that produced it, stored with it (docs/usage.md).
   */
  checkpoint(
    step: number,
    messages: ChatMessage[],
    events?: PendingEvent[],
    usage?: ModelCallUsage,
  ): Promise<void>;
  /**
   * `checkpoint` held back for the step's child starts to adopt (`RunEmitter.hold`): used for a step whose
   * every call only starts a child run, so the model's turn commits with the first child, not before it.
   */
  hold?(step: number, messages: ChatMessage[], events: PendingEvent[], usage?: ModelCallUsage): void;
  /**
   * Checkpoints the final answer and ends the run as completed in the same transaction. Returns the ended
   * run, or undefined when it could not be ended (its status moved, e.g. to a cancel); the checkpoint is
   * committed either way. Without it the final answer is only checkpointed and the caller ends the run.
   */
  finish?(
    step: number,
    messages: ChatMessage[],
    events: PendingEvent[],
    output: string,
    usage: ModelCallUsage,
  ): Promise<Run | undefined>;
  /** Called before each model call; may stop the run or return messages to add first (steering). */
  beforeStep?(step: number): Promise<ChatMessage[]>;
}
