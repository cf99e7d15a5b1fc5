import type { ClaimTerms } from '../../../core/ports/storage.js';
import type { Run } from '../../../core/records/run.js';

/**
 * A slot of this process's executor, taken for a run being created: the creating transaction inserts the run
 * already claimed with `claim` (`runs.insert(run, claim)`: this worker, a fresh lease, started now) and, once
 * it committed, `start`s it here, with no queue hop and no claim statement of its own. A start that creates
 * no run (refused, replayed, failed) calls `release`.
 */
export interface RunReservation {
  readonly claim: ClaimTerms;
  /** Executes the run, claimed with `claim` in a committed transaction, in the reserved slot. */
  start(run: Run): void;
  /** Gives the slot back, unless `start` took it: no run was created with the claim. */
  release(): void;
}

/** What an executor offers its process's run creators; undefined when no slot is free right now. */
export type ReserveRun = () => RunReservation | undefined;

/**
 * Where the code that creates child runs (subagents, delegations) finds this process's executor, when it
 * has one that has started. A child created while a slot is free runs at once where its parent runs, as
 * deepagents' subagents do; one created when the executor is busy, or in a process that executes nothing,
 * goes through the queue as before. Either way the run is `running` under this worker's lease on the same
 * terms as any claim (`RunLease.terms`), its parent's stream hears `pending` then `running`, and a dead
 * process's lease lapses so the reconciler hands the run to another worker.
 */
export class LocalRunStarts {
  #reserve: ReserveRun | undefined;

  /** The executor, from its start until its stop. */
  attach(reserve: ReserveRun | undefined): void {
    this.#reserve = reserve;
  }

  reserve(): RunReservation | undefined {
    return this.#reserve?.();
  }
}
