import type { RunBudget } from '../../../core/budgets/budget.js';
import { budgetExhaustedError } from '../../../core/budgets/budget-exhaustion.js';
import { RunAbortError } from '../../../core/runs/run-abort.js';
import type { RunEmitter } from '../../events/run-emitter.js';
import { createInactivityWatchdog } from './inactivity-watchdog.js';

export interface RunWatch {
  /** The run's emitter, counting every event and delta as activity. */
  emitter: RunEmitter;
  /** For waits on other runs: the inactivity clock stops meanwhile. */
  paused: <T>(work: () => Promise<T>) => Promise<T>;
  stop(): void;
}

/**
 * The clocks of a run in flight (docs/budgets.md): its budget's deadline, and its inactivity timeout. Either ends
 * the run through its abort signal, so calls in flight are aborted and the executor writes the outcome.
 */
export function watchRun(options: {
  emitter: RunEmitter;
  ledger: RunBudget | undefined;
  inactivityTimeoutMs: number;
  abort(reason: RunAbortError): void;
}): RunWatch {
  const { ledger } = options;
  const abort = (reason: RunAbortError) => options.abort(reason);
  const watchdog = createInactivityWatchdog(options.inactivityTimeoutMs, () =>
    abort(
      new RunAbortError('inactive', {
        type: 'inactivity_timeout',
        message: `The run emitted nothing for ${options.inactivityTimeoutMs} ms and was interrupted`,
      }),
    ),
  );
  let deadline: NodeJS.Timeout | undefined;
  if (ledger?.deadline_at) {
    deadline = setTimeout(
      () => abort(new RunAbortError('budget', budgetExhaustedError(ledger, 'wall_ms'))),
      Math.max(0, Date.parse(ledger.deadline_at) - Date.now()),
    );
    deadline.unref();
  }
  const inner = options.emitter;
  return {
    emitter: {
      emit(type, payload, besides) {
        watchdog.touch();
        return inner.emit(type, payload, besides);
      },
      commit(events, alongside, messages) {
        watchdog.touch();
        return inner.commit(events, alongside, messages);
      },
      announce(type, payload) {
        watchdog.touch();
        inner.announce(type, payload);
      },
      delta(text) {
        watchdog.touch();
        inner.delta(text);
      },
      flush: () => inner.flush(),
      hold(events, messages) {
        watchdog.touch();
        inner.hold(events, messages);
      },
      adopt: () => inner.adopt(),
    },
    paused: (work) => watchdog.paused(work),
    stop() {
      watchdog.stop();
      if (deadline) clearTimeout(deadline);
    },
  };
}
