import type { Run, RunError } from '../../../core/records/run.js';
import { publishSubagentUpdate } from '../children/publish-subagent-update.js';
import { finishRun, type RunEndingPorts } from '../end/run-finalizer.js';

export const CANCELLED_BEFORE_START: RunError = {
  type: 'cancelled',
  message: 'The run was cancelled before it started',
};
export const CANCELLED: RunError = { type: 'cancelled', message: 'The run was cancelled' };
export const TREE_CLOSED: RunError = {
  type: 'execution_tree_closed',
  message: 'The parent run ended, so its execution tree was closed',
};

/**
 * Requests cancellation of one run: a run no worker holds (pending, parked for input) is cancelled at once;
 * a running one becomes `cancel_requested` and its worker is signalled. Returns the run as it now is.
 * Races with a worker claiming the run are settled by retrying the compare-and-set on the fresh row.
 */
export async function requestCancel(
  ports: RunEndingPorts,
  runId: string,
  error: RunError,
): Promise<Run | undefined> {
  const { storage, bus } = ports;
  for (let attempt = 0; attempt < 5; attempt++) {
    const run = await storage.runs.get(runId);
    if (!run) return undefined;
    switch (run.status) {
      case 'completed':
      case 'failed':
      case 'cancelled':
      case 'interrupted':
      case 'cancel_requested':
        return run;
      case 'pending':
      case 'input_required': {
        const cancelled = await finishRun(ports, {
          runId: run.id,
          expect: { status: [run.status] },
          write: {
            status: 'cancelled',
            error: error === CANCELLED && run.started_at === null ? CANCELLED_BEFORE_START : error,
          },
        });
        if (cancelled) return cancelled;
        break;
      }
      case 'running': {
        const requested = await storage.runs.update(
          run.id,
          { status: ['running'] },
          { status: 'cancel_requested', error },
        );
        if (requested) {
          await publishSubagentUpdate(storage, bus, requested);
          try {
            await bus.signal({ type: 'cancel', run_id: run.id });
          } catch {
            // The worker also sees cancel_requested in the database at its next step or lease renewal.
          }
          return requested;
        }
        break;
      }
    }
  }
  return storage.runs.get(runId);
}

/**
 * Closes every active descendant of `root`, parents before their children, as docs/runs.md#cascades does when a run
 * ends. One read finds them all, however wide the tree (a parent of 100 children read 101 times before).
 */
export async function closeSubtree(ports: RunEndingPorts, root: Run): Promise<Run[]> {
  return closeRuns(ports, await ports.storage.runs.listActiveDescendants(root.id));
}

/** Closes runs of an execution tree read parents first (closeSubtree), each as the tree's end closes it. */
export async function closeRuns(ports: RunEndingPorts, runs: readonly Run[]): Promise<Run[]> {
  const closed: Run[] = [];
  for (const run of runs) {
    const after = await requestCancel(ports, run.id, TREE_CLOSED);
    if (after) closed.push(after);
  }
  return closed;
}
