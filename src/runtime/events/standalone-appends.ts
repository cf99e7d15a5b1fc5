import type { RunEventBatch, Storage } from '../../core/ports/storage.js';
import type { NewRunEvent, RunEvent } from '../../core/records/run-event.js';
import {
  isOutcomeUnknown,
  readingThrough,
  writingThrough,
  type StorageOutage,
} from '../../core/runs/storage-outage.js';

const PAGE = 500;

/**
 * The rows of a batch of one run's events that an append whose answer was lost may have written, or undefined
 * when it did not land. One statement writes a batch at consecutive numbers, so it landed exactly when the run's
 * stream after `afterSeq` holds its events, in order, with the same payloads, at consecutive numbers. `afterSeq`
 * is the last number the writer saw committed: nothing of its own lies after it but the lost batch, and what
 * other writers append there (a child's `subagent_update`, a verdict) is no copy of it.
 */
export async function findLandedBatch(
  storage: Storage,
  runId: string,
  afterSeq: number,
  batch: readonly Omit<NewRunEvent, 'run_id'>[],
): Promise<RunEvent[] | undefined> {
  const key = (event: Omit<NewRunEvent, 'run_id'>): string =>
    `${event.type}\u0000${JSON.stringify(event.payload)}`;
  const wanted = batch.map(key);
  const stream: RunEvent[] = [];
  for (let after = afterSeq; ;) {
    const page = await storage.events.list(runId, after, PAGE);
    stream.push(...page);
    const last = page.at(-1);
    if (page.length < PAGE || !last) break;
    after = last.seq;
  }
  const keys = stream.map(key);
  for (let start = 0; start + wanted.length <= stream.length; start++) {
    const candidate = stream.slice(start, start + wanted.length);
    const base = candidate[0]?.seq ?? 0;
    if (
      candidate.every((event, index) => event.seq === base + index && keys[start + index] === wanted[index])
    )
      return candidate;
  }
  return undefined;
}

/**
 * One run's appends outside a transaction (its emitter's, docs/scale-out.md, "Outages"). One whose answer was
 * lost (a connection that died under it) is looked up once the database is back instead of failing the attempt,
 * which would ask the model's turn again: after the last number of the run's stream seen committed (`saw`), or
 * anywhere for the attempt's first write when it carries the attempt's `metadata` (its attempt number is in no
 * other). Landed: its rows are the answer (the other runs' rows of the same statement are not read: their
 * readers fill the gap from storage). Not landed: it surely wrote nothing and is sent again. Without either
 * anchor, or an outage to wait out, it fails as before.
 */
export function createStandaloneAppends(deps: {
  storage: Storage;
  runId: string;
  outage: StorageOutage | undefined;
}) {
  const { storage, runId, outage } = deps;
  let lastSeq: number | undefined;
  const saw = (events: readonly RunEvent[]): void => {
    for (const event of events)
      if (event.run_id === runId && (lastSeq === undefined || event.seq > lastSeq)) lastSeq = event.seq;
  };
  const append = async (batches: readonly RunEventBatch[]): Promise<RunEvent[][]> => {
    // The run's own events come first (the emitter's `ownBatch`).
    const own = batches[0]?.run_id === runId ? batches[0].events : [];
    for (;;) {
      try {
        // Sent again for as long as it surely wrote nothing; one of unknown outcome is looked up below.
        const appended = await writingThrough(outage, () => storage.events.appendBatches(batches));
        saw(appended[0] ?? []);
        return appended;
      } catch (error) {
        const after = lastSeq ?? (own.some((event) => event.type === 'metadata') ? 0 : undefined);
        // Without events of its own, nothing would tell whether the other runs' rows landed.
        if (!outage || !isOutcomeUnknown(error) || after === undefined || own.length === 0) throw error;
        await outage.waitOut();
        const landed = await readingThrough(outage, () => findLandedBatch(storage, runId, after, own));
        if (landed) {
          saw(landed);
          return [landed, ...batches.slice(1).map(() => [])];
        }
      }
    }
  };
  return { saw, append };
}
