import type { Storage } from '../../../core/ports/storage.js';
import type { Agent } from '../../../core/records/agent.js';
import type { Run } from '../../../core/records/run.js';
import { mayStartChildren } from '../../../core/runs/child-run-parent.js';
import type { RunEndings } from '../run-endings.js';

export interface CascadeDeps {
  storage: Storage;
  endings: RunEndings;
  /** Called last (e.g. cascade decisions that need the agent config). */
  onTerminal?: (run: Run) => Promise<void>;
}

/** What a run's end does to the runs around it: its own children, and those an earlier turn kept alive. */
export async function cascadeAfterTerminal(
  deps: CascadeDeps,
  run: Run,
  /** The run's agent as its attempt loaded it, when the caller has it (the config the run ran with). */
  loaded?: Agent,
): Promise<void> {
  const { storage } = deps;
  // A subagent run has no children, nor has any run of its conversation: nothing to read or close.
  if (mayStartChildren(run)) {
    const agent = loaded ?? (await storage.agents.get(run.agent_id));
    // Background children may outlive their parent's turn when the agent asks for it (docs/runs.md); a cancel
    // always closes the whole subtree. Children an earlier turn kept alive are closed when the
    // conversation's next run ends: both in one read.
    const own = run.status === 'cancelled' || agent?.config.keep_background_runs !== true;
    await deps.endings.closeRuns(await storage.runs.listActiveBelowTurn(run, { own }));
  }
  if (deps.onTerminal) await deps.onTerminal(run);
}
