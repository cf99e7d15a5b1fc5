import type { Storage } from '../../core/ports/storage.js';
import type { Actor } from '../../core/records/user.js';
import { visibleRun } from '../../core/runs/visible-run.js';
import type { Evidence } from '../../core/verification/evidence.js';
import type { Verification } from '../../core/verification/verification.js';
import { readEvidence } from './read-evidence.js';

export interface RunEvidence {
  evidence: Evidence;
  verification: Verification | null;
}

/**
 * Any run's evidence as of now, with its stored verdict (docs/verified-delegation.md#where-verdicts-are-visible):
 * the whole object a parent model reads as one `[evidence]` line, for API clients whose child was never graded.
 * Scoped like the other run routes: a run the actor cannot see is `run_not_found`.
 */
export async function readRunEvidence(storage: Storage, actor: Actor, runId: string): Promise<RunEvidence> {
  const run = visibleRun(actor, runId, await storage.runs.get(runId));
  const [evidence, stored] = await Promise.all([
    readEvidence(storage, run),
    storage.verifications.get(run.id),
  ]);
  return { evidence, verification: stored?.verification ?? null };
}
