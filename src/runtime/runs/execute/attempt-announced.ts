import type { Storage } from '../../../core/ports/storage.js';
import type { Run } from '../../../core/records/run.js';

const PAGE = 500;

/**
 * Whether the `metadata` event of the run's current attempt is committed. An attempt started over after a
 * database outage asks before announcing itself again: the write that carried it may have failed with its
 * outcome unknown (docs/scale-out.md, "Outages"), and a run must have one `metadata` per attempt, never none.
 * Read only on that path, so a scan of the run's events costs nothing in the usual one.
 */
export async function attemptAnnounced(storage: Storage, run: Run): Promise<boolean> {
  for (let after = 0; ;) {
    const events = await storage.events.list(run.id, after, PAGE);
    if (events.some((event) => event.type === 'metadata' && event.payload.attempt === run.attempt))
      return true;
    const last = events.at(-1);
    if (!last || events.length < PAGE) return false;
    after = last.seq;
  }
}
