import type { Run } from '../../core/records/run.js';
import type { RunEmitter } from '../run-emitter.js';
import { appendSubagentUpdate } from '../subagents/publish-subagent-update.js';

/**
 * An attempt's `metadata` event and, for a child, the `running` update on its parent's stream: one commit.
 * Both say the same thing (this run is being worked on) to the two streams that watch it.
 */
export async function announceAttempt(
  emitter: RunEmitter,
  run: Run,
  metadata: Record<string, unknown>,
): Promise<void> {
  if (run.created_by_run_id === null) {
    await emitter.emit('metadata', metadata);
    return;
  }
  await emitter.commit([{ type: 'metadata', payload: metadata }], async (tx, append) => {
    // The run's own stream before its parent's, the order its ending takes too.
    await append();
    const update = await appendSubagentUpdate(tx, run);
    return update ? [update] : [];
  });
}
