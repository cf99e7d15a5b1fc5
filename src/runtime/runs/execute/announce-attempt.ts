import type { Run } from '../../../core/records/run.js';
import type { Storage } from '../../../core/ports/storage.js';
import type { RunEmitter } from '../../events/run-emitter.js';
import { subagentUpdateBatch } from '../children/publish-subagent-update.js';
import type { RunEventBody } from '../../../core/records/run-event.js';

/**
 * An attempt's `metadata` event and, for a child, the `running` update on its parent's stream: one insert.
 * Both say the same thing (this run is being worked on) to the two streams that watch it; the run's own
 * stream comes first, the order its ending takes too.
 *
 * A root run's `metadata` leads the attempt's first append instead (`announce`): with a first step that
 * commits within DELTA_FLUSH_MS, or on its own then, so a quick turn spends no statement on it. A child's goes
 * out at once: its parent's panel shows it running from the claim, and in a fan-out, holding hundreds of
 * children's updates for their final commits made the parent's stream bursty (SSE p99 25 → 75–108 ms in the
 * fan-out bench, 5 of 5 runs). A child its creator's start claimed for this worker (`parentTold`, see
 * LocalRunStarts) told its parent it runs in the updates that start committed: its `metadata` leads like a root's.
 */
export async function announceAttempt(
  storage: Storage,
  emitter: RunEmitter,
  run: Run,
  metadata: RunEventBody<'metadata'>,
  parentTold = false,
): Promise<void> {
  const update = parentTold ? undefined : await subagentUpdateBatch(storage, run);
  if (update) await emitter.emit('metadata', metadata, [update]);
  else emitter.announce('metadata', metadata);
}
