import type { Run } from '../../core/records/run.js';
import type { Storage } from '../../core/ports/storage.js';
import type { RunEmitter } from '../run-emitter.js';
import { subagentUpdateBatch } from '../subagents/publish-subagent-update.js';

/**
 * An attempt's `metadata` event and, for a child, the `running` update on its parent's stream: one insert.
 * Both say the same thing (this run is being worked on) to the two streams that watch it; the run's own
 * stream comes first, the order its ending takes too. Held by the emitter to lead the attempt's first append
 * (`announce`): within DELTA_FLUSH_MS on its own, or with a first step that commits sooner, so a quick
 * attempt spends no statement on it. An attempt that dies before then leaves no `metadata`; the next one's
 * says which attempt it is.
 */
export async function announceAttempt(
  storage: Storage,
  emitter: RunEmitter,
  run: Run,
  metadata: Record<string, unknown>,
): Promise<void> {
  const update = await subagentUpdateBatch(storage, run);
  emitter.announce('metadata', metadata, update ? [update] : []);
}
