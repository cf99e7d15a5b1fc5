import type { Run } from '../../../core/records/run.js';
import type { RunEvent } from '../../../core/records/run-event.js';

/**
 * A subagent run's evidence events (`EVIDENCE_EVENT_TYPES`) as the transaction that completed it read them back,
 * in the same round trip as its `end` (run-finalizer.ts), held beside the committed row that transaction wrote.
 * A parent in the process that ended its child gets that very row with the `end` (`endedRunOf`) and builds the
 * child's evidence without reading storage; any other copy of the row (decoded from Redis, read from storage)
 * has none, and its evidence is read (`readEvidence`). Only the run's own attempt appends these events, and
 * nothing is appended after an `end`, so what the ending read is what a later read would return
 * (docs/verified-delegation.md).
 */
const ended = new WeakMap<Run, readonly RunEvent[]>();

export function attachEndedEvidence(run: Run, events: readonly RunEvent[]): void {
  ended.set(run, events);
}

/** The evidence events the transaction that ended `run` read back with its `end`, when this process wrote both. */
export function endedEvidenceOf(run: Run): readonly RunEvent[] | undefined {
  return ended.get(run);
}
