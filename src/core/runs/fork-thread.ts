import { TroupeError } from '../errors.js';
import type { ThreadMessage } from '../records/thread-message.js';
import type { ChatMessage } from '../thread/chat-message.js';

/** One message of a fork's thread: the source's message, and the run and step it is stored under. */
export interface ForkedMessage {
  run_id: string | null;
  step: number;
  message: ChatMessage;
}

/** What a fork's new thread holds and how its run starts (docs/effects-and-forks.md#fork). */
export interface ForkThreadPlan {
  /** The source's last step the fork keeps (0: only its input). */
  step: number;
  /**
   * The messages of the new thread, in order. Earlier turns (and, with an `input`, the source's own kept steps)
   * keep their run id and step, as history; without one the kept steps are the fork run's own.
   */
  messages: ForkedMessage[];
  /**
   * No `input`: the fork run continues the source's run from the kept step (its input is the source's), so
   * the kept steps are stored as its own and the loop resumes after them.
   */
  continues: boolean;
}

function isFinalAnswer(entry: ThreadMessage): boolean {
  const { message } = entry;
  if (message.role !== 'assistant' || entry.step < 1) return false;
  return typeof message.content === 'string' || !message.content.some((part) => part.type === 'tool-call');
}

/**
 * Which messages of the source run's thread a fork copies. The thread is append-only, so the messages up to a
 * step are exactly that step's checkpoint: everything before the run, then the run's own steps 0..`step`.
 * With an `input` the default step is the run's last (the fork is a new turn after the whole run); without
 * one it is 0, and the fork re-runs the source's input (a new model or prompt against the same question). A
 * fork without input after the run's final answer would have nothing to do: `fork_point_invalid`.
 */
export function planForkThread(
  thread: readonly ThreadMessage[],
  sourceRunId: string,
  forkRunId: string,
  options: { afterStep?: number | undefined; hasInput: boolean },
): ForkThreadPlan {
  const own = thread.filter((entry) => entry.run_id === sourceRunId);
  const first = own[0];
  if (first === undefined) {
    throw new TroupeError('fork_point_invalid', `Run ${sourceRunId} has no stored messages to fork from`);
  }
  const lastStep = own.reduce((highest, entry) => Math.max(highest, entry.step), 0);
  const step = options.afterStep ?? (options.hasInput ? lastStep : 0);
  if (step > lastStep) {
    throw new TroupeError(
      'step_not_found',
      `Run ${sourceRunId} has no step ${step} (its last is ${lastStep})`,
    );
  }
  const history = thread.filter((entry) => entry.seq < first.seq);
  const kept = own.filter((entry) => entry.step <= step);
  const last = kept.at(-1);
  const continues = !options.hasInput;
  if (continues && last !== undefined && isFinalAnswer(last)) {
    throw new TroupeError(
      'fork_point_invalid',
      `Step ${step} is the final answer of run ${sourceRunId}: give an input to continue after it, or fork at an earlier step`,
    );
  }
  const copy = (entry: ThreadMessage, runId: string | null): ForkedMessage => ({
    run_id: runId,
    step: entry.step,
    message: entry.message,
  });
  return {
    step,
    continues,
    messages: [
      ...history.map((entry) => copy(entry, entry.run_id)),
      ...kept.map((entry) => copy(entry, continues ? forkRunId : entry.run_id)),
    ],
  };
}
