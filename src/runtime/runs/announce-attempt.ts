import type { Run } from '../../core/records/run.js';
import type { Storage } from '../../core/ports/storage.js';
import type { RunEmitter } from '../run-emitter.js';
import { subagentUpdateBatch } from '../subagents/publish-subagent-update.js';

/**
 * An attempt's `metadata` event and, for a child, the `running` update on its parent's stream: one insert.
 * Both say the same thing (this run is being worked on) to the two streams that watch it; the run's own
 * stream comes first, the order its ending takes too.
 */
export async function announceAttempt(
  storage: Storage,
  emitter: RunEmitter,
  run: Run,
  metadata: Record<string, unknown>,
): Promise<void> {
  const update = await subagentUpdateBatch(storage, run);
  await emitter.emit('metadata', metadata, update ? [update] : []);
}
