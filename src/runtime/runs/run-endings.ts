import type { Storage } from '../../core/ports/storage.js';
import type { Run, RunError } from '../../core/records/run.js';
import { closeRuns, closeSubtree, requestCancel } from './cancel/request-cancel.js';
import {
  endRunIn,
  finishRun,
  type EndedRun,
  type RunEnding,
  type RunEndingPorts,
} from './end/run-finalizer.js';

/**
 * Every way a run ends or is asked to end (docs/runs.md#ending-a-run, docs/runs.md#cancellation), over the
 * runtime's storage, bus and clock, so that callers name the run and what to write, nothing else.
 */
export interface RunEndings {
  /** Ends the run inside the caller's transaction (`endRunIn`); the caller publishes what it returns. */
  endIn(tx: Storage, ending: RunEnding): Promise<EndedRun | undefined>;
  /** Ends the run in a transaction of its own, then publishes its events; undefined when the guard failed. */
  finish(ending: RunEnding): Promise<Run | undefined>;
  /** Cancels a run no worker holds at once; asks the worker of a running one to stop (`requestCancel`). */
  requestCancel(runId: string, error: RunError): Promise<Run | undefined>;
  /** Closes every active descendant of `root`, parents first. */
  closeSubtree(root: Run): Promise<Run[]>;
  /** Closes runs of an execution tree read parents first, each as the tree's end closes it. */
  closeRuns(runs: readonly Run[]): Promise<Run[]>;
}

export function createRunEndings(ports: RunEndingPorts): RunEndings {
  return {
    endIn: (tx, ending) => endRunIn(tx, ports.clock, ending),
    finish: (ending) => finishRun(ports, ending),
    requestCancel: (runId, error) => requestCancel(ports, runId, error),
    closeSubtree: (root) => closeSubtree(ports, root),
    closeRuns: (runs) => closeRuns(ports, runs),
  };
}
