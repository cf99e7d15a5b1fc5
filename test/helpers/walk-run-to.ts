import type { RunPatch, Storage } from '../../src/core/ports/storage.js';
import { RUN_STATUSES, type Run, type RunStatus } from '../../src/core/records/run.js';
import { canTransition } from '../../src/core/run-state-machine.js';

/** The shortest legal path between two statuses (excluding `from`), or undefined when there is none. */
function pathBetween(from: RunStatus, to: RunStatus): RunStatus[] | undefined {
  const previous = new Map<RunStatus, RunStatus | null>([[from, null]]);
  const queue: RunStatus[] = [from];
  while (queue.length > 0) {
    const at = queue.shift() as RunStatus;
    if (at === to) break;
    for (const next of RUN_STATUSES) {
      if (previous.has(next) || !canTransition(at, next)) continue;
      previous.set(next, at);
      queue.push(next);
    }
  }
  if (!previous.has(to)) return undefined;
  const path: RunStatus[] = [];
  for (let at: RunStatus | null | undefined = to; at && at !== from; at = previous.get(at)) path.unshift(at);
  return path;
}

/**
 * Test setup: moves a run to `status` through legal compare-and-set steps (the repository refuses a status
 * write the state machine does not allow), then applies `patch` with the last step.
 */
export async function walkRunTo(
  storage: Storage,
  runOrId: Run | string,
  status: RunStatus,
  patch: Omit<RunPatch, 'status'> = {},
): Promise<Run> {
  const id = typeof runOrId === 'string' ? runOrId : runOrId.id;
  let current = await storage.runs.get(id);
  if (!current) throw new Error(`walkRunTo: no run ${id}`);
  const steps = pathBetween(current.status, status);
  if (!steps) throw new Error(`walkRunTo: no legal way from ${current.status} to ${status}`);
  for (const [index, next] of steps.entries()) {
    const last = index === steps.length - 1;
    const moved = await storage.runs.update(
      id,
      { status: [current.status] },
      { status: next, ...(last ? patch : {}) },
    );
    if (!moved) throw new Error(`walkRunTo: ${current.status} → ${next} did not apply to ${id}`);
    current = moved;
  }
  if (steps.length === 0 && Object.keys(patch).length > 0)
    current = (await storage.runs.update(id, {}, patch)) ?? current;
  return current;
}
