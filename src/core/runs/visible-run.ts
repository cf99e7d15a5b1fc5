import { TroupeError } from '../errors.js';
import { isAdmin, type Actor } from '../records/user.js';

/** Whether `actor` may see `run`: its own, or any run for an admin. */
export function canSeeRun<R extends { user_id: string }>(actor: Actor, run: R | undefined): run is R {
  return run !== undefined && (run.user_id === actor.id || isAdmin(actor));
}

/** The run `actor` may see; anyone else's run is indistinguishable from a missing one (`run_not_found`). */
export function visibleRun<R extends { user_id: string }>(
  actor: Actor,
  runId: string,
  run: R | undefined,
): R {
  if (!canSeeRun(actor, run)) throw new TroupeError('run_not_found', `Run ${runId} not found`);
  return run;
}
