import { systemClock } from '../../../src/core/clock.js';
import type { EventBus } from '../../../src/core/ports/event-bus.js';
import type { StepMessages, Storage } from '../../../src/core/ports/storage.js';
import type { Run } from '../../../src/core/records/run.js';
import type { RunEvent } from '../../../src/core/records/run-event.js';
import { createRunEmitter } from '../../../src/runtime/events/create-run-emitter.js';
import { endRunIn } from '../../../src/runtime/runs/end/run-finalizer.js';

/** The final step's own event, committed with the run's end. */
export const FINAL_STEP = [{ type: 'step' as const, payload: { step: 1, tool_calls: 0 } }];

/**
 * A run's final commit as its worker (`wrk_dead`, claimByDeadWorker) makes it: the step's events (and `messages`),
 * with the completed ending built from the row the worker holds, careful when the commit runs again. Each try's
 * `careful` goes to `attempts`.
 */
export function commitFinal(
  h: { storage: Storage; bus: EventBus },
  run: Run,
  attempts: boolean[],
  options: { delta?: string; messages?: StepMessages } = {},
): Promise<RunEvent[]> {
  const emitter = createRunEmitter(h.storage, h.bus, run);
  if (options.delta !== undefined) emitter.delta(options.delta);
  return emitter.commit(
    FINAL_STEP,
    async (tx, append, attempt) => {
      attempts.push(attempt.careful);
      const ended = await endRunIn(tx, systemClock, {
        runId: run.id,
        expect: { status: ['running'], worker_id: 'wrk_dead' },
        write: { status: 'completed', output: 'the answer' },
        hasLedger: false,
        append,
        ...(attempt.careful ? {} : { held: run }),
      });
      return ended?.events;
    },
    options.messages,
  );
}
