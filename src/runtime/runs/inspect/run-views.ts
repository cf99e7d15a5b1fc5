import { isoNow, type Clock } from '../../../core/clock.js';
import type { Storage } from '../../../core/ports/storage.js';
import { isActiveStatus, type Run, type RunView, type WorkerLost } from '../../../core/records/run.js';
import { emptyUsage, mergeStoredUsage } from '../../../core/runs/run-usage.js';
import { workerLostOf, type LeaseTakeover } from '../../../core/runs/worker-lost.js';

/**
 * Runs as every API read shows them (docs/usage.md), so the chat footer, the status panel, the runs
 * explorer, the run tree and the trace read one figure: an active run's usage is what its attempts settled
 * so far, read from its stored turns (one statement for all the runs asked about), and a run an expired
 * lease holds says its worker is lost.
 */
export interface RunViews {
  /** `runs` in the same order, the active ones that started with their live usage. */
  withLiveUsage<T extends Run>(runs: readonly T[]): Promise<T[]>;
  workerLost(run: Run): WorkerLost | null;
  views(runs: readonly Run[]): Promise<RunView[]>;
  view(run: Run): Promise<RunView>;
}

export function createRunViews(deps: { storage: Storage; clock: Clock; takeover: LeaseTakeover }): RunViews {
  const { storage } = deps;

  async function withLiveUsage<T extends Run>(runs: readonly T[]): Promise<T[]> {
    const live = runs.filter((run) => isActiveStatus(run.status) && run.started_at !== null);
    if (live.length === 0) return [...runs];
    const settled = await storage.messages.settledUsageOf(live);
    return runs.map((run) =>
      isActiveStatus(run.status) && run.started_at !== null
        ? { ...run, usage: mergeStoredUsage(run.usage, settled.get(run.id) ?? emptyUsage()) }
        : run,
    );
  }

  const workerLost = (run: Run): WorkerLost | null => workerLostOf(run, isoNow(deps.clock), deps.takeover);

  async function views(runs: readonly Run[]): Promise<RunView[]> {
    return (await withLiveUsage(runs)).map((run) => ({ ...run, worker_lost: workerLost(run) }));
  }

  return {
    withLiveUsage,
    workerLost,
    views,
    async view(run) {
      const [view] = await views([run]);
      return view ?? { ...run, worker_lost: workerLost(run) };
    },
  };
}
