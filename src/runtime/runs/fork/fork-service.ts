import type { PriceTable } from '../../../core/budgets/price-table.js';
import type { RunComparison } from '../../../core/records/run-comparison.js';
import type { Actor } from '../../../core/records/user.js';
import { compareRuns } from '../inspect/compare-runs.js';
import { forkRun, type ForkRequest, type ForkResult, type ForkRunDeps } from './fork-run.js';

/** Forks and comparisons of runs (docs/effects-and-forks.md#fork), scoped to the acting user like every run read. */
export interface ForkService {
  fork(actor: Actor, runId: string, request: ForkRequest): Promise<ForkResult>;
  compare(actor: Actor, leftRunId: string, rightRunId: string): Promise<RunComparison>;
}

export function createForkService(deps: ForkRunDeps & { prices: PriceTable | undefined }): ForkService {
  return {
    fork: (actor, runId, request) => forkRun(deps, actor, runId, request),
    compare: (actor, left, right) => compareRuns(deps, actor, left, right),
  };
}
